"""Tests of the augur package over libaugur; AUGUR_LIB names the library and
AUGUR_TESTDATA the repository's testdata directory (both default to the
checkout this package sits in)."""

import array
import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import pathlib
import pickle
import pydoc
import subprocess
import sys
import tempfile
import threading
import types
import unittest

import augur

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.environ.get("AUGUR_TESTDATA", os.path.join(HERE, "..", "..", "testdata"))
POCL = os.path.join(TESTDATA, "conv2d-pocl.augur")
FLEET = os.path.join(TESTDATA, "conv2d-fleet.augur")
# A spec kernel whose configuration sets two arguments (libaugur's testdata).
VALUES = os.path.join(HERE, "..", "..", "libaugur", "testdata", "specscale.augur")
# A spec kernel with a string parameter, MODE of 'mul', 'add', 'sub'.
LABELS = os.path.join(HERE, "..", "..", "libaugur", "testdata", "specmode.augur")
SHAPE = dict(width=1920, height=1080, filter_w=5, filter_h=5)
# A signature of conv2d-pocl.augur by signer.pub's key ('augur sign'), and
# another key that did not sign it.
KEYS = os.path.join(HERE, "testdata")


def choose_width(width):
    """Chooses for SHAPE at width in a worker process."""
    with augur.Chooser(POCL) as chooser:
        return chooser.choose(**dict(SHAPE, width=width))


class ErrorTest(unittest.TestCase):
    def test_pickle(self):
        e = pickle.loads(pickle.dumps(augur.Error(augur.ERR_SHAPE, "augur: x")))
        self.assertIs(type(e), augur.Error)
        self.assertEqual((e.code, str(e)), (augur.ERR_SHAPE, "augur: x"))
        self.assertEqual(repr(e), "Error(7, 'augur: x')")

    def test_spawn_worker(self):
        # docs/python.md sends workers to spawn: an error raised in one
        # must reach the parent as itself, not break the pool.
        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
            self.assertEqual(pool.submit(choose_width, 1920).result(timeout=120)["plan"]["dims"], 2)
            with self.assertRaises(augur.Error) as e:
                pool.submit(choose_width, "wide").result(timeout=120)
        self.assertEqual(e.exception.code, augur.ERR_SHAPE)
        self.assertIn("'wide'", str(e.exception))


class ChooserTest(unittest.TestCase):
    def setUp(self):
        self.chooser = augur.Chooser(POCL)

    def tearDown(self):
        self.chooser.close()

    def test_plan_values(self):
        self.assertEqual(self.chooser.plan_value_names, [])
        self.assertEqual(self.chooser.choose(**SHAPE)["plan"]["values"], {})
        with augur.Chooser(VALUES) as c:
            self.assertEqual(c.plan_value_names, ["wg", "scratch"])
            for pick in [c.choose(n=3000)] + c.candidates(3, n=3000):
                wg = pick["config"]["WG"]
                self.assertEqual(pick["plan"]["values"], {"wg": wg, "scratch": 4 * wg})

    def test_documented(self):
        # help(augur.Chooser) names every public attribute; changing a
        # list read from one changes no later read.
        doc = pydoc.render_doc(augur.Chooser)
        with augur.Chooser(LABELS) as c:
            public = [n for n in dir(c) if not n.startswith("_") and not callable(getattr(c, n))]
            self.assertEqual(sorted(public), ["param_labels", "param_names", "plan_value_names", "shape_names"])
            for name in public:
                self.assertIn(name + ":", augur.Chooser.__doc__)
                self.assertIn(name, doc)
            c.shape_names.append("depth")
            c.param_labels["MODE"].append("div")
            self.assertEqual(c.shape_names, ["problem_size_0"])
            self.assertEqual(c.param_labels, {"MODE": ["mul", "add", "sub"]})
            c.choose(problem_size_0=5000)

    def test_all(self):
        # The constants a caller compares Error.code with are exported.
        scope = {}
        exec("from augur import *", scope)
        exported = sorted(set(scope) - {"__builtins__"})
        for name in dir(augur):
            if name.startswith("ERR_") or name == "MAX_CANDIDATES":
                self.assertIn(name, exported)
        for name in augur.__all__:
            self.assertTrue(hasattr(augur, name), name)

    def test_names(self):
        self.assertEqual(self.chooser.shape_names, ["width", "height", "filter_w", "filter_h"])
        self.assertEqual(self.chooser.param_names, ["Xwg", "Ywg", "Xwpt", "Ywpt", "LS", "VW", "PAD", "UNR"])

    def test_choose(self):
        pick = self.chooser.choose(**SHAPE)
        self.assertEqual(sorted(pick["config"]), sorted(self.chooser.param_names))
        self.assertTrue(pick["source"].startswith("model:"), pick["source"])
        plan = pick["plan"]
        self.assertEqual(plan["dims"], 2)
        self.assertEqual(len(plan["global"]), 2)
        self.assertIn("-D FW=5", plan["build_options"])
        self.assertEqual(plan["local"], [pick["config"]["Xwg"], pick["config"]["Ywg"]])
        # By position, the same pick.
        self.assertEqual(self.chooser.choose([1920, 1080, 5, 5]), pick)

    def test_clamped(self):
        self.assertFalse(self.chooser.choose(**SHAPE)["clamped"])
        # The same bundle with its model recording a training range whose
        # top, 0.5, lies below the pick's prediction: the pick is the
        # same, its prediction clamped to 0.5 and flagged: its log-speedup
        # over the reference's prediction (within the range) falls.
        with open(POCL) as f:
            b = json.load(f)
        model = b["models"][0]
        model["lightgbm"] = model["lightgbm"].replace(
            "\n\nend of parameters", "\n[augur_target_range: -1 0.5]\n\nend of parameters", 1)
        b["checksum"] = "0" * 64
        data = json.dumps(b, indent=1).encode()
        at = data.rindex(b'"checksum": "') + len('"checksum": "')
        digest = hashlib.sha256(data[:at] + data[at + 64:]).hexdigest().encode()
        with augur.Chooser(bundle=data[:at] + digest + data[at + 64:]) as ranged:
            pick = ranged.choose(**SHAPE)
        self.assertTrue(pick["clamped"])
        self.assertLess(pick["log_speedup"], self.chooser.choose(**SHAPE)["log_speedup"])
        self.assertEqual(pick["config"], self.chooser.choose(**SHAPE)["config"])

    def test_bad_shapes(self):
        cases = [
            ("missing", dict(width=1920, height=1080, filter_w=5)),
            ("unknown", dict(SHAPE, depth=3)),
            ("even filter", dict(SHAPE, filter_w=4)),
        ]
        for name, shape in cases:
            with self.subTest(name):
                with self.assertRaises(augur.Error) as e:
                    self.chooser.choose(**shape)
                self.assertEqual(e.exception.code, augur.ERR_SHAPE)
        with self.assertRaises(augur.Error) as e:
            self.chooser.choose([1920, 1080, 5])
        self.assertEqual(e.exception.code, augur.ERR_SHAPE)
        self.assertIn("shape has 3 values, want 4", str(e.exception))

    def test_shape_values(self):
        # A value that is not a 64-bit integer raises, never wraps or
        # truncates into another shape; integral floats (a numpy array's)
        # and a dict pass.
        bad = [
            ("wraps past 2**64", dict(SHAPE, width=2**64 + 1920)),
            ("past int64", dict(SHAPE, width=2**63)),
            ("fraction", dict(SHAPE, filter_w=5.9)),
            ("text", dict(SHAPE, width="1920")),
            ("bool", dict(SHAPE, filter_w=True)),
            ("nan", dict(SHAPE, width=float("nan"))),
            ("none", dict(SHAPE, width=None)),
        ]
        for name, shape in bad:
            with self.subTest(name):
                with self.assertRaises(augur.Error) as e:
                    self.chooser.choose(**shape)
                self.assertEqual(e.exception.code, augur.ERR_SHAPE)
        want = self.chooser.choose(**SHAPE)
        self.assertEqual(self.chooser.choose(dict(SHAPE, width=1920.0)), want)
        self.assertEqual(self.chooser.choose([1920, 1080, 5, 5]), want)
        self.assertEqual(self.chooser.choose(array.array("q", [1920, 1080, 5, 5])), want)
        self.assertEqual(self.chooser.choose(types.MappingProxyType(SHAPE)), want)

    def test_shape_types(self):
        # A shape is a mapping by name or a sequence of values: anything
        # else is ERR_SHAPE naming what was given, never a TypeError or a
        # str read one character a value.
        bad = [
            ("int", 1920, "1920 (int)"),
            ("str", "1920", "'1920' (str)"),
            ("bytes", b"1920", "b'1920' (bytes)"),
            ("set", {1920, 1080, 5}, "(set)"),
            ("float", 1920.0, "1920.0 (float)"),
        ]
        for name, shape, named in bad:
            with self.subTest(name):
                with self.assertRaises(augur.Error) as e:
                    self.chooser.choose(shape)
                self.assertEqual(e.exception.code, augur.ERR_SHAPE)
                self.assertIn("augur: shape is ", str(e.exception))
                self.assertIn(named, str(e.exception))
                with self.assertRaises(augur.Error) as e:
                    self.chooser.candidates(2, shape)
                self.assertEqual(e.exception.code, augur.ERR_SHAPE)
        with self.assertRaises(augur.Error) as e:
            self.chooser.choose([1920, 1080, 5, 5], width=1920)
        self.assertEqual(e.exception.code, augur.ERR_SHAPE)
        with tempfile.TemporaryDirectory() as d, augur.Chooser(POCL, wisdom=os.path.join(d, "w")) as c:
            with self.assertRaises(augur.Error) as e:
                c.record("1920", [8, 8, 1, 1, 0, 1, 0, 0], 1000)
            self.assertEqual(e.exception.code, augur.ERR_SHAPE)
            with self.assertRaises(augur.Error) as e:
                c.record(SHAPE, "88110100", 1000)
            self.assertEqual(e.exception.code, augur.ERR_CONFIG)
            self.assertIn("config is '88110100' (str)", str(e.exception))

    def test_closed(self):
        c = augur.Chooser(POCL)
        c.close()
        with self.assertRaises(augur.Error) as e:
            c.choose(**SHAPE)
        self.assertEqual(e.exception.code, augur.ERR_HANDLE)
        self.assertIn("closed", str(e.exception))

    def test_bad_arguments(self):
        for device in (b"x", "nvidia-h200\0x", {"name": object()}, {"clock_mhz": float("nan")}):
            with self.subTest(device=device):
                with self.assertRaises(augur.Error) as e:
                    augur.Chooser(POCL, device=device)
                self.assertEqual(e.exception.code, augur.ERR_ARG, str(e.exception))
        with self.assertRaises(augur.Error) as e:
            augur.Chooser(POCL + "\0x")
        self.assertEqual(e.exception.code, augur.ERR_ARG)
        with self.assertRaises(augur.Error) as e:
            self.chooser.candidates(2.5, **SHAPE)
        self.assertEqual(e.exception.code, augur.ERR_ARG)
        self.assertGreaterEqual(len(self.chooser.candidates(10**12, **SHAPE)), 2)

    def test_abi_mismatch(self):
        # A library of other structs than the package's is refused at load,
        # not used to write past them.
        code = ("import augur\naugur.ABI = 99\naugur._lib = None\n"
                "try:\n    augur._load()\nexcept OSError as e:\n    print('refused' if 'ABI' in str(e) else e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..")))
        self.assertEqual(out.stdout.strip(), "refused", out.stderr)

    def test_forked_child(self):
        # The Go runtime in libaugur does not survive fork: a forked child
        # gets an error at once, not a hang.
        if not hasattr(os, "fork"):
            self.skipTest("no fork")
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                augur.Chooser(POCL)
            except augur.Error as e:
                code = 0 if e.code == augur.ERR_UNSUPPORTED and "fork" in str(e) else 2
            except BaseException:
                code = 3
            os.write(w, bytes([code]))
            os._exit(0)
        os.close(w)
        got = os.read(r, 1)
        os.close(r)
        os.waitpid(pid, 0)
        self.assertEqual(got, b"\x00", "the forked child did not get the fork error")

    def test_candidates(self):
        top = self.chooser.candidates(5, **SHAPE)
        self.assertEqual(len(top), 5)
        self.assertEqual(top[0]["config"], self.chooser.choose(**SHAPE)["config"])
        configs = [tuple(sorted(p["config"].items())) for p in top]
        self.assertEqual(len(set(configs)), 5, "candidates must be distinct")
        with self.assertRaises(augur.Error):
            self.chooser.candidates(0, **SHAPE)

    def test_record_without_wisdom(self):
        with self.assertRaises(augur.Error) as e:
            self.chooser.record(SHAPE, [8, 8, 1, 1, 0, 1, 0, 0], 1000)
        self.assertEqual(e.exception.code, augur.ERR_NO_WISDOM)

    def test_threads(self):
        errors = []

        def work(i):
            try:
                for j in range(50):
                    self.chooser.choose(width=256 + 16 * ((i * 7 + j) % 30), height=512, filter_w=3, filter_h=3)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])


class OpenTest(unittest.TestCase):
    def test_errors(self):
        cases = [
            ("missing file", dict(bundle="/nonexistent.augur"), augur.ERR_IO),
            ("missing file as bytes", dict(bundle=b"/nonexistent.augur"), augur.ERR_IO),
            ("bad platform json", dict(bundle=POCL, device="{not json"), augur.ERR_ARG),
            # A name neither the fleet bundle nor the device table knows: an
            # error, never a silent reference configuration.
            ("unknown device", dict(bundle=FLEET, device="Some Future GPU"), augur.ERR_DEVICE),
        ]
        for name, kwargs, code in cases:
            with self.subTest(name):
                with self.assertRaises(augur.Error) as e:
                    augur.Chooser(**kwargs)
                self.assertEqual(e.exception.code, code, str(e.exception))
        for data in (b"not a bundle", bytearray(b"not a bundle"), memoryview(b"not a bundle")):
            with self.subTest("not a bundle", type=type(data).__name__):
                with self.assertRaises(augur.Error) as e:
                    augur.Chooser.from_bytes(data)
                self.assertEqual(e.exception.code, augur.ERR_BUNDLE, str(e.exception))

    def test_table_device(self):
        # A device the bundle has no model of but augur's device table
        # knows: served by the fleet bundle's policy for such a device.
        with augur.Chooser(FLEET, device="NVIDIA A100-PCIE-40GB") as c:
            pick = c.choose(width=1920, height=1080, filter_w=5, filter_h=5)
        self.assertTrue(pick["source"] == "fleet" or pick["source"].startswith("copy:"), pick["source"])

    def test_corrupted_bundle(self):
        with open(POCL, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2 : len(data) // 2 + 64] = b"x" * 64
        with self.assertRaises(augur.Error) as e:
            augur.Chooser(bytes(data))
        self.assertEqual(e.exception.code, augur.ERR_BUNDLE)

    def test_bytes_and_context_manager(self):
        with open(POCL, "rb") as f:
            data = f.read()
        with augur.Chooser(data) as chooser:
            pick = chooser.choose(**SHAPE)
        with augur.Chooser(POCL) as chooser:
            self.assertEqual(chooser.choose(**SHAPE), pick)
        chooser.close()  # a second close is a no-op

    def test_bundle_forms(self):
        # A str, bytes or os.PathLike is the bundle's path; from_bytes takes
        # its contents as any bytes-like object. Chooser keeps reading a
        # bytes object that starts with '{', a bytearray and a memoryview as
        # contents, as before from_bytes.
        with open(POCL, "rb") as f:
            data = f.read()
        want = augur.Chooser(POCL).choose(**SHAPE)
        forms = [
            ("str path", lambda: augur.Chooser(POCL)),
            ("bytes path", lambda: augur.Chooser(os.fsencode(POCL))),
            ("PathLike", lambda: augur.Chooser(pathlib.Path(POCL))),
            ("bytes", lambda: augur.Chooser(data)),
            ("bytearray", lambda: augur.Chooser(bytearray(data))),
            ("memoryview", lambda: augur.Chooser(memoryview(data))),
            ("from_bytes", lambda: augur.Chooser.from_bytes(data)),
            ("from_bytes of a memoryview", lambda: augur.Chooser.from_bytes(memoryview(bytearray(data)))),
        ]
        for name, open_ in forms:
            with self.subTest(name), open_() as c:
                self.assertEqual(c.choose(**SHAPE), want)
        # A bytes path that is no file says how bytes are read.
        with self.assertRaises(augur.Error) as e:
            augur.Chooser(b"/nonexistent.augur")
        self.assertEqual(e.exception.code, augur.ERR_IO)
        self.assertIn("/nonexistent.augur", str(e.exception))
        self.assertIn("Chooser.from_bytes", str(e.exception))
        for wrong in (POCL, None, 5):
            with self.subTest("from_bytes", data=wrong):
                with self.assertRaises(augur.Error) as e:
                    augur.Chooser.from_bytes(wrong)
                self.assertEqual(e.exception.code, augur.ERR_ARG)
                self.assertIn("bytes", str(e.exception))
        # from_bytes has no path to find the signature beside.
        keys = [os.path.join(KEYS, "signer.pub")]
        with self.assertRaises(augur.Error) as e:
            augur.Chooser.from_bytes(data, trusted_keys=keys)
        self.assertEqual(e.exception.code, augur.ERR_ARG)
        sig = os.path.join(KEYS, "conv2d-pocl.augur.sig")
        with augur.Chooser.from_bytes(data, trusted_keys=keys, signature=sig) as c:
            self.assertEqual(c.choose(**SHAPE), want)

    def test_fleet_with_platform(self):
        platform = {
            "platform_name": "NVIDIA CUDA", "vendor": "NVIDIA Corporation",
            "name": "NVIDIA A100-PCIE-40GB", "type": "gpu", "compute_units": 108,
            "clock_mhz": 1410, "max_work_group_size": 1024,
            "max_work_item_sizes": [1024, 1024, 64], "local_mem_bytes": 49152,
            "global_mem_bytes": 42505207808, "constant_mem_bytes": 65536,
            "global_cache_bytes": 3538944, "cache_line_bytes": 128, "image_support": True,
        }
        with augur.Chooser(FLEET, device=platform) as chooser:
            pick = chooser.choose(**SHAPE)
        self.assertNotEqual(pick["source"], "reference")

    def test_version(self):
        self.assertRegex(augur.version(), r"^\d+\.\d+\.\d+")


class WisdomTest(unittest.TestCase):
    def test_refresh(self):
        # A record by another chooser on the same file reaches this one at
        # its refresh().
        path = os.path.join(tempfile.mkdtemp(), "w.jsonl")
        with augur.Chooser(POCL, wisdom=path) as a, augur.Chooser(POCL, wisdom=path) as b:
            cand = a.candidates(2, **SHAPE)[1]
            a.record(SHAPE, cand["config"], 1.0)
            self.assertEqual(a.choose(**SHAPE)["source"], "wisdom")
            self.assertNotEqual(b.choose(**SHAPE)["source"], "wisdom")
            b.refresh()
            got = b.choose(**SHAPE)
            self.assertEqual((got["source"], got["config"]), ("wisdom", cand["config"]))
        with augur.Chooser(POCL) as plain, self.assertRaises(augur.Error) as e:
            plain.refresh()
        self.assertEqual(e.exception.code, augur.ERR_NO_WISDOM)

    def test_record_then_choose(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "conv2d.wisdom")
            with augur.Chooser(POCL, wisdom=path) as chooser:
                top = chooser.candidates(3, **SHAPE)
                # Pretend the third ran fastest.
                for i, pick in enumerate(top):
                    chooser.record(SHAPE, pick["config"], [3000, 2000, 1000][i])
                pick = chooser.choose(**SHAPE)
                self.assertEqual(pick["source"], "wisdom")
                self.assertEqual(pick["config"], top[2]["config"])
                with self.assertRaises(augur.Error) as e:
                    chooser.record(SHAPE, dict(top[0]["config"], Xwg=7), 1000)
                self.assertEqual(e.exception.code, augur.ERR_CONFIG)
            # Another chooser reads the file.
            with augur.Chooser(POCL, wisdom=path) as chooser:
                self.assertEqual(chooser.choose(**SHAPE)["config"], top[2]["config"])
            with open(path) as f:
                self.assertEqual(len(f.read().splitlines()), 3)

    def test_string_parameter(self):
        with augur.Chooser(POCL) as c:
            self.assertEqual(c.param_labels, {})
        with tempfile.TemporaryDirectory() as d:
            with augur.Chooser(LABELS, wisdom=os.path.join(d, "w")) as c:
                self.assertEqual(c.param_labels, {"MODE": ["mul", "add", "sub"]})
                top = c.candidates(3, problem_size_0=5000)
                for pick in top:
                    mode = pick["config"]["MODE"]
                    self.assertIn(mode, ["mul", "add", "sub"])
                    self.assertIn("-DMODE=" + mode, pick["plan"]["build_options"])
                    self.assertIsInstance(pick["config"]["WG"], int)
                # record takes the text, as choose gives it, or its number.
                c.record([5000], top[-1]["config"], 1000)
                self.assertEqual(c.choose(problem_size_0=5000)["config"], top[-1]["config"])
                c.record([6000], {"WG": 16, "MODE": 1}, 1000)
                self.assertEqual(c.choose(problem_size_0=6000)["config"], {"WG": 16, "MODE": "add"})
                with self.assertRaises(augur.Error) as e:
                    c.record([5000], {"WG": 16, "MODE": "div"}, 1000)
                self.assertEqual(e.exception.code, augur.ERR_CONFIG)
                self.assertIn("'mul', 'add', 'sub'", str(e.exception))


class TrustTest(unittest.TestCase):
    def test_signed(self):
        sig = os.path.join(KEYS, "conv2d-pocl.augur.sig")
        with augur.Chooser(POCL, trusted_keys=[os.path.join(KEYS, "signer.pub")], signature=sig) as c:
            self.assertTrue(c.choose(**SHAPE)["source"].startswith("model:"))
        with self.assertRaises(augur.Error) as e:
            augur.Chooser(POCL, trusted_keys=[os.path.join(KEYS, "other.pub")], signature=sig)
        self.assertEqual(e.exception.code, augur.ERR_UNTRUSTED)
        with open(POCL, "rb") as f:
            data = bytearray(f.read())
        data[-200] ^= 1  # a change the signature does not cover
        with self.assertRaises(augur.Error) as e:
            augur.Chooser(bytes(data), trusted_keys=[os.path.join(KEYS, "signer.pub")], signature=sig)
        self.assertEqual(e.exception.code, augur.ERR_UNTRUSTED)

    def test_key_files(self):
        # A key file that is missing or holds no public key is an Error
        # that names it; so is an empty list, which would check nothing.
        sig = os.path.join(KEYS, "conv2d-pocl.augur.sig")
        signer = os.path.join(KEYS, "signer.pub")
        with tempfile.TemporaryDirectory() as d:
            private = os.path.join(d, "signer.key")
            with open(private, "w") as f:
                f.write("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n")
            cases = [
                ("missing", ["/nonexistent.pub"], augur.ERR_IO, "/nonexistent.pub"),
                ("missing beside a good one", [signer, "/nonexistent.pub"], augur.ERR_IO, "/nonexistent.pub"),
                ("a directory", [d], augur.ERR_IO, d),
                ("a private key", [private], augur.ERR_ARG, private),
                ("empty", [], augur.ERR_ARG, "trusted_keys"),
                ("not paths", 5, augur.ERR_ARG, "trusted_keys"),
            ]
            for name, keys, code, named in cases:
                with self.subTest(name):
                    with self.assertRaises(augur.Error) as e:
                        augur.Chooser(POCL, trusted_keys=keys, signature=sig)
                    self.assertEqual(e.exception.code, code, str(e.exception))
                    self.assertIn(named, str(e.exception))
            # A key file without a final newline, before the signer's.
            with open(os.path.join(KEYS, "other.pub")) as f:
                other = f.read().rstrip("\n")
            unended = os.path.join(d, "other.pub")
            with open(unended, "w") as f:
                f.write(other)
            for keys in (signer, [unended, signer]):
                with augur.Chooser(POCL, trusted_keys=keys, signature=sig) as c:
                    self.assertTrue(c.choose(**SHAPE)["source"].startswith("model:"))


if __name__ == "__main__":
    unittest.main()
