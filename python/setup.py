"""The wheel carries libaugur.so, a native library loaded with ctypes: it is
platform-specific but not tied to a Python version or ABI, so it is tagged
py3-none-PLATFORM instead of pure (py3-none-any). pyproject.toml holds the
rest; `make wheel` in the augur checkout builds it with the library inside."""

from setuptools import setup

try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    setup(cmdclass={"bdist_wheel": PlatformWheel})
except ImportError:  # no wheel package: an sdist or a plain install
    setup()
