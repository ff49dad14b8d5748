"""augur: choose OpenCL kernel configurations from an augur model bundle.

A ctypes binding of libaugur (the C library ``make lib`` builds): no compiled
extension, no OpenCL and no Arrow. ::

    import augur

    with augur.Chooser("conv2d.augur", device="nvidia-h200") as chooser:
        print(chooser.shape_names)         # ['width', 'height', 'filter_w', 'filter_h']
        pick = chooser.choose(width=1920, height=1080, filter_w=5, filter_h=5)
        pick["config"]                     # {'Xwg': 16, 'Ywg': 16, ...}
        pick["plan"]["build_options"]      # '-D FW=5 -D FH=5 -D Xwg=16 ...'

libaugur is looked for in the AUGUR_LIB environment variable (the library's
path), then next to this package, then in the ``bin/`` directory of the
augur checkout the package sits in, then by its soname (``libaugur.so.1``
for ABI 1) where the dynamic loader looks: ``make install`` puts it there.
"""

import ctypes
import json
import math
import numbers
import operator
import os
import reprlib
from collections.abc import Mapping

__all__ = [
    "Chooser", "Error", "library_path", "version", "ABI", "MAX_CANDIDATES",
    "ERR_ARG", "ERR_HANDLE", "ERR_IO", "ERR_BUNDLE", "ERR_VERSION", "ERR_DEVICE", "ERR_SHAPE", "ERR_CONFIG",
    "ERR_NO_WISDOM", "ERR_TRUNCATED", "ERR_UNSUPPORTED", "ERR_UNTRUSTED", "ERR_INTERNAL",
]

# The layout of the structs below (augur_types.h's AUGUR_ABI): a library of
# another is refused at load.
ABI = 1
MAX_PARAMS = 64
SOURCE_MAX = 64
BUILD_OPTIONS_MAX = 1024
# The most picks candidates() returns: it allocates k result structs.
MAX_CANDIDATES = 4096

ERR_ARG = 1
ERR_HANDLE = 2
ERR_IO = 3
ERR_BUNDLE = 4
ERR_VERSION = 5
ERR_DEVICE = 6
ERR_SHAPE = 7
ERR_CONFIG = 8
ERR_NO_WISDOM = 9
ERR_TRUNCATED = 10
ERR_UNSUPPORTED = 11
ERR_UNTRUSTED = 12
ERR_INTERNAL = 99

PARAM_INT = 0
PARAM_FLOAT = 1
PARAM_STRING = 2


class Error(Exception):
    """A failed libaugur call, or an argument refused before the call;
    ``code`` is its AUGUR_ERR_* code (augur.ERR_SHAPE, ...) and str() the
    message. It pickles with both, so an error raised in a multiprocessing
    worker reaches the parent as itself."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code

    def __reduce__(self):
        # Exception's own reduce rebuilds from args, which hold the message
        # alone: Error(message) would miss the code.
        return type(self), (self.code, str(self))

    def __repr__(self):
        return "%s(%r, %r)" % (type(self).__name__, self.code, str(self))


class _Config(ctypes.Structure):
    _fields_ = [
        ("n", ctypes.c_int32),
        ("values", ctypes.c_int64 * MAX_PARAMS),
        ("source", ctypes.c_char * SOURCE_MAX),
        ("log_speedup", ctypes.c_double),
        ("outside_octaves", ctypes.c_double),
        ("clamped", ctypes.c_int32),
    ]


class _Plan(ctypes.Structure):
    _fields_ = [
        ("dims", ctypes.c_int32),
        ("global_", ctypes.c_int64 * 3),
        ("local", ctypes.c_int64 * 3),
        ("local_mem_bytes", ctypes.c_int64),
        ("build_options", ctypes.c_char * BUILD_OPTIONS_MAX),
    ]


class _OpenOptions(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("bundle", ctypes.c_void_p),
        ("bundle_len", ctypes.c_size_t),
        ("device", ctypes.c_char_p),
        ("platform_json", ctypes.c_char_p),
        ("wisdom_path", ctypes.c_char_p),
        ("trusted_keys_pem", ctypes.c_char_p),
        ("signature_path", ctypes.c_char_p),
    ]


def library_path():
    """Returns the path of the libaugur.so that this package loads, or its
    soname (libaugur.so.ABI) for the dynamic loader to find when neither
    AUGUR_LIB, the package's directory nor the checkout's bin/ holds it."""
    env = os.environ.get("AUGUR_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (
        os.path.join(here, "libaugur.so"),
        os.path.join(here, "..", "..", "bin", "libaugur.so"),
    ):
        if os.path.exists(path):
            return os.path.normpath(path)
    return "libaugur.so.%d" % ABI


def _open_library(path):
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        if os.sep in path:
            raise
        here = os.path.dirname(os.path.abspath(__file__))
        raise OSError(
            "augur: libaugur not found (%s): set AUGUR_LIB to its path, copy libaugur.so next to %s, "
            "run `make lib` in the augur checkout, or `make install` it (and ldconfig)" % (e, here)
        ) from None


_lib = None
_pid = None  # the process that loaded libaugur


def _load():
    global _lib, _pid
    if _lib is not None:
        _alive()
        return _lib
    lib = _open_library(library_path())
    _pid = os.getpid()
    h = ctypes.c_int64
    i32 = ctypes.c_int32
    p64 = ctypes.POINTER(ctypes.c_int64)
    lib.augur_version.restype = ctypes.c_char_p
    lib.augur_version.argtypes = []
    try:
        abi = lib.augur_abi
    except AttributeError:
        abi = None
    if abi is not None:
        abi.restype, abi.argtypes = ctypes.c_int, []
    if abi is None or abi() != ABI:
        raise OSError("augur: %s has ABI %s, this package reads ABI %d: rebuild it (make lib) from the same "
                      "checkout as this package" % (library_path(), "unknown" if abi is None else abi(), ABI))
    lib.augur_last_error.restype = ctypes.c_char_p
    lib.augur_last_error.argtypes = []
    lib.augur_open.argtypes = [ctypes.POINTER(_OpenOptions), ctypes.POINTER(h)]
    lib.augur_close.argtypes = [h]
    for f in (lib.augur_shape_names, lib.augur_param_names, lib.augur_plan_value_names):
        f.argtypes = [h, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(i32)]
    lib.augur_param_labels.argtypes = [h, i32, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(i32), ctypes.POINTER(i32)]
    lib.augur_plan_value.argtypes = [h, p64, i32, p64, i32, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double)]
    lib.augur_choose.argtypes = [h, p64, i32, ctypes.POINTER(_Config), ctypes.POINTER(_Plan)]
    lib.augur_candidates.argtypes = [
        h, p64, i32, i32, ctypes.POINTER(_Config), ctypes.POINTER(_Plan), ctypes.POINTER(i32)]
    lib.augur_record.argtypes = [h, p64, i32, p64, i32, ctypes.c_double]
    lib.augur_refresh.argtypes = [h]
    for f in (lib.augur_open, lib.augur_close, lib.augur_shape_names, lib.augur_param_names,
              lib.augur_plan_value_names, lib.augur_param_labels, lib.augur_plan_value,
              lib.augur_choose, lib.augur_candidates, lib.augur_record, lib.augur_refresh):
        f.restype = ctypes.c_int
    _lib = lib
    return lib


def _check(rc):
    if rc != 0:
        raise Error(rc, _lib.augur_last_error().decode("utf-8", "replace"))


def _alive():
    """Refuses a process forked after libaugur loaded: the Go runtime inside
    libaugur does not survive fork (a call can hang), so a child must load
    it afresh."""
    if _pid is not None and os.getpid() != _pid:
        raise Error(ERR_UNSUPPORTED, "augur: this process was forked after libaugur was loaded, and the Go runtime "
                    "inside it does not survive fork: start workers with multiprocessing's 'spawn' or 'forkserver' "
                    "method, or load augur only in the workers")


def _int(what, v, code):
    """Returns v as a C int64: an integer, or a float with no fraction
    (a numpy array's values too); anything else raises Error(code)."""
    if not isinstance(v, bool):
        try:
            n = operator.index(v)
        except TypeError:
            n = None
            if isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer():
                n = int(v)
        if n is not None:
            if -(1 << 63) <= n < (1 << 63):
                return n
            raise Error(code, "augur: %s is %d, beyond a 64-bit integer" % (what, n))
    raise Error(code, "augur: %s is %r, not an integer" % (what, v))


def _sequence(what, v, code, names, kind):
    """Returns v, a sequence of values (a list, a tuple, a numpy array, ...),
    as a list or tuple; a str or bytes (one value, not several), a set (no
    order) or a value that is not iterable raises Error(code) saying what
    was given and that a mapping of names to kind or a sequence of them is
    wanted."""
    if type(v) is list or type(v) is tuple:
        return v
    if not isinstance(v, (str, bytes, bytearray, set, frozenset)):
        try:
            return list(v)
        except TypeError:
            pass
    raise Error(code, "augur: %s is %s (%s), not a mapping of %s to %s, or a sequence of %d %s in that order" % (
        what, reprlib.repr(v), type(v).__name__, ", ".join(names), kind, len(names), kind))


def version():
    """Returns libaugur's version."""
    return _load().augur_version().decode()


def _path(what, p):
    """Returns path p for C: a str, bytes or os.PathLike without a NUL."""
    try:
        b = os.fsencode(p)
    except TypeError:
        raise Error(ERR_ARG, "augur: %s is %r, not a path" % (what, p)) from None
    if b"\0" in b:
        raise Error(ERR_ARG, "augur: %s path %r holds a NUL byte" % (what, p))
    return b


def _trusted_keys(paths):
    """Returns the PEM public keys in the files paths names (one path, or an
    iterable of them) for libaugur, one after another; a file that cannot
    be read or holds no public key raises Error naming it."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    try:
        paths = list(paths)
    except TypeError:
        raise Error(ERR_ARG, "augur: trusted_keys is %r: give a key file's path or a list of them" % (paths,)) from None
    pems = []
    for k in paths:
        path = _path("trusted key", k)
        try:
            with open(path, "rb") as f:
                pem = f.read()
        except OSError as e:
            raise Error(ERR_IO, "augur: trusted key %s: %s" % (os.fsdecode(path), e.strerror or e)) from None
        # Checked here because libaugur sees the keys joined and cannot
        # say which file is wrong (a private key given for its .pub, say).
        if b"-----BEGIN PUBLIC KEY-----" not in pem:
            raise Error(ERR_ARG, "augur: trusted key %s holds no PEM public key (augur keygen writes it to "
                        "NAME.pub)" % os.fsdecode(path))
        pems.append(pem)
    if not pems:
        # No keys would load any bundle unchecked: None says that, not [].
        raise Error(ERR_ARG, "augur: trusted_keys is empty: give at least one key file, or None for no check")
    # A newline between files: a key file without a final newline would
    # otherwise run its END line into the next file's BEGIN line.
    return b"\n".join(pems)


class Chooser:
    """Picks kernel configurations for shapes from a model bundle.

    bundle: the .augur file's path (a str, bytes or os.PathLike); give its
        contents to Chooser.from_bytes. For compatibility with earlier
        releases, a bytes object that starts with '{' (every bundle does, a
        path in practice never), a bytearray or a memoryview is read as the
        contents.
    device: the device's name or slug as its data was collected (a str), or
        its features as ``augur devices --json`` prints one device (a dict, or
        that JSON as a str starting with '{'); None: the bundle's only model
        or its fleet model. A device the bundle serves with no model at all
        raises Error (code ERR_DEVICE) rather than answering with the
        reference configuration.
    wisdom: a wisdom file (JSON lines, created when missing): choose()
        answers a shape recorded there with its fastest recorded
        configuration, and record() appends to it. None: no wisdom.
    trusted_keys: paths of trusted public keys (the .pub files of ``augur
        keygen``): the bundle must carry a valid signature by one of them
        (Error with code ERR_UNTRUSTED otherwise). None: no check.
    signature: the bundle's signature file (a path), read only with
        trusted_keys; None means the bundle's path + ".sig".

    Attributes, read-only (each read returns a new copy, the caller's):

    shape_names: the names of a shape's values, in the order choose(),
        candidates() and record() take a sequence in (a list of str).
    param_names: the names of the kernel's parameters: the keys of a pick's
        "config", in the order record() takes a sequence in.
    param_labels: what a spec's string or float parameter's numbers stand
        for, by parameter name: value j's label at j (a str, or a float),
        as a pick's "config" gives it. The other parameters' values are the
        numbers themselves and are absent: {} for most kernels.
    plan_value_names: the kernel arguments a configuration sets (a spec's
        scalar, or a local buffer sized by the parameters): the keys of a
        pick's plan["values"]; [] for most kernels.

    Methods are safe to call from several threads. Close the chooser with
    close(), or use it as a context manager. A failed call, in libaugur or
    over an argument, raises Error, whose code is an ERR_* constant; only
    a libaugur that cannot be loaded raises OSError.
    """

    def __init__(self, bundle, device=None, wisdom=None, trusted_keys=None, signature=None):
        self._h = 0
        if isinstance(bundle, bytes) and not bundle.startswith(b"{"):
            self._open(bundle, None, device, wisdom, trusted_keys, signature,
                       "; bytes that do not start with '{' are a path: give a bundle's contents to Chooser.from_bytes")
        elif isinstance(bundle, (bytes, bytearray, memoryview)):
            # A bundle's contents, as the first releases read any bytes.
            self._open(None, bundle, device, wisdom, trusted_keys, signature)
        else:
            self._open(bundle, None, device, wisdom, trusted_keys, signature)

    @classmethod
    def from_bytes(cls, data, device=None, wisdom=None, trusted_keys=None, signature=None):
        """Returns a Chooser of a bundle's contents: data is any bytes-like
        object (bytes, bytearray, memoryview, mmap, ...), copied; the other
        arguments are Chooser's. With trusted_keys, signature must name the
        signature file, since there is no bundle path to add ".sig" to."""
        if data is None or isinstance(data, str):
            raise Error(ERR_ARG, "augur: from_bytes: data is %s: give the bundle's bytes (a path goes to "
                        "Chooser(path))" % ("None" if data is None else "a str"))
        self = cls.__new__(cls)
        self._h = 0
        self._open(None, data, device, wisdom, trusted_keys, signature)
        return self

    def _open(self, path, data, device, wisdom, trusted_keys, signature, note=""):
        """Opens the bundle at path, or of contents data (a bytes-like
        object), as __init__ says; note ends the message of an error about
        the path."""
        lib = _load()
        opt = _OpenOptions()
        keep = None  # the contents' copy, alive until augur_open has copied it
        if data is not None:
            try:
                view = memoryview(data)
            except TypeError:
                raise Error(ERR_ARG, "augur: the bundle's contents are %s (%s), not bytes" % (
                    reprlib.repr(data), type(data).__name__)) from None
            with view:
                keep = ctypes.create_string_buffer(view.tobytes() if type(data) is not bytes else data, view.nbytes)
            # addressof, not cast: a cast ties the buffer into a reference
            # cycle that only the cyclic collector frees.
            opt.bundle = ctypes.addressof(keep)
            opt.bundle_len = ctypes.sizeof(keep)
        else:
            try:
                opt.path = _path("bundle", path)
            except Error as e:
                raise Error(e.code, str(e) + note) from None
        if isinstance(device, dict):
            try:
                opt.platform_json = json.dumps(device, allow_nan=False).encode()
            except (TypeError, ValueError) as e:
                raise Error(ERR_ARG, "augur: device's features are no JSON: %s" % e) from None
        elif isinstance(device, str):
            # C reads a str up to its first NUL: the rest would be lost.
            b = device.encode("utf-8", "surrogateescape")
            if b"\0" in b:
                raise Error(ERR_ARG, "augur: device %r holds a NUL character" % (device,))
            if device.lstrip().startswith(("{", "[")):
                opt.platform_json = b
            else:
                opt.device = b
        elif device is not None:
            raise Error(ERR_ARG, "augur: device is %r: give its name or slug (a str) or its features (a dict)" % (device,))
        opt.wisdom_path = None if wisdom is None else _path("wisdom", wisdom)
        if trusted_keys is not None:
            opt.trusted_keys_pem = _trusted_keys(trusted_keys)
            opt.signature_path = None if signature is None else _path("signature", signature)
        handle = ctypes.c_int64()
        rc = lib.augur_open(ctypes.byref(opt), ctypes.byref(handle))
        if rc == ERR_IO and note and not os.path.exists(opt.path):
            raise Error(rc, _lib.augur_last_error().decode("utf-8", "replace") + note)
        _check(rc)
        self._h = handle.value
        self._shape_names = self._names(lib.augur_shape_names)
        self._param_names = self._names(lib.augur_param_names)
        self._plan_value_names = self._names(lib.augur_plan_value_names)
        self._param_labels = {}
        for i, name in enumerate(self._param_names):
            labels = self._labels(i)
            if labels is not None:
                self._param_labels[name] = labels

    # Copies: a caller that changed the chooser's own lists would change
    # how it reads shapes and configurations.
    @property
    def shape_names(self):
        """The names of a shape's values, in the order a sequence takes."""
        return list(self._shape_names)

    @property
    def param_names(self):
        """The names of the kernel's parameters, the keys of a pick's config."""
        return list(self._param_names)

    @property
    def param_labels(self):
        """A spec's string or float parameter's labels, by parameter name."""
        return {name: list(labels) for name, labels in self._param_labels.items()}

    @property
    def plan_value_names(self):
        """The kernel arguments a configuration sets: a pick's plan["values"]."""
        return list(self._plan_value_names)

    def _names(self, fn):
        n = ctypes.c_int32()
        size = 256
        while True:
            buf = ctypes.create_string_buffer(size)
            rc = fn(self._h, buf, size, ctypes.byref(n))
            if rc != ERR_TRUNCATED:
                _check(rc)
                return buf.value.decode().split(",") if buf.value else []
            size *= 4

    def _labels(self, i):
        n, kind = ctypes.c_int32(), ctypes.c_int32()
        size = 256
        while True:
            buf = ctypes.create_string_buffer(size)
            rc = _lib.augur_param_labels(self._h, i, buf, size, ctypes.byref(n), ctypes.byref(kind))
            if rc != ERR_TRUNCATED:
                _check(rc)
                break
            size *= 4
        if kind.value == PARAM_INT:
            return None
        labels = [b.decode() for b in buf.raw.split(b"\0")[: n.value]]
        return [float(l) for l in labels] if kind.value == PARAM_FLOAT else labels

    def _value(self, name, v):
        labels = self._param_labels.get(name)
        return labels[v] if labels is not None and 0 <= v < len(labels) else v

    def _number(self, name, v):
        labels = self._param_labels.get(name)
        if labels is None or isinstance(v, int) and not isinstance(v, bool) and v not in labels:
            return _int("config value %s" % name, v, ERR_CONFIG)
        try:
            return labels.index(float(v) if isinstance(labels[0], float) else v)
        except (ValueError, TypeError):
            raise Error(ERR_CONFIG, "augur: record: %s is %r, not one of %s" % (
                name, v, ", ".join(repr(l) for l in labels))) from None

    def _handle(self):
        _alive()
        if not self._h:
            raise Error(ERR_HANDLE, "augur: the chooser is closed")
        return self._h

    def _shape(self, shape, kwargs):
        """Returns shape (a mapping by name or a sequence in shape_names
        order), or kwargs by name when shape is None, as a C array and its
        length; anything else raises Error(ERR_SHAPE) naming it."""
        names = self._shape_names
        if shape is not None:
            if kwargs:
                raise Error(ERR_SHAPE, "augur: give the shape as a sequence or by name, not both")
            if type(shape) is list or type(shape) is tuple:
                pass  # the common case, first: choose is called at every kernel call
            elif type(shape) is dict or isinstance(shape, Mapping):
                shape, kwargs = None, shape
            else:
                shape = _sequence("shape", shape, ERR_SHAPE, names, "integers")
        if shape is None:
            missing = [n for n in names if n not in kwargs]
            extra = sorted(set(kwargs) - set(names), key=str)
            if missing or extra:
                raise Error(ERR_SHAPE, "augur: shape needs %s%s" % (
                    ", ".join(names),
                    "; unknown: " + ", ".join(map(str, extra)) if extra else "; missing: " + ", ".join(missing)))
            shape = [kwargs[n] for n in names]
        values = [_int("shape value %s" % (names[i] if i < len(names) else i), v, ERR_SHAPE) for i, v in enumerate(shape)]
        return (ctypes.c_int64 * max(len(values), 1))(*values), len(values)

    def _pick(self, c, p, shape, n):
        values = {}
        for name in self._plan_value_names:
            v = ctypes.c_double()
            cfg = ctypes.cast(c.values, ctypes.POINTER(ctypes.c_int64))
            _check(_lib.augur_plan_value(self._h, shape, n, cfg, c.n, name.encode(), ctypes.byref(v)))
            values[name] = v.value
        return {
            "config": {self._param_names[i]: self._value(self._param_names[i], c.values[i]) for i in range(c.n)},
            "source": c.source.decode(),
            "log_speedup": c.log_speedup,
            "outside_octaves": c.outside_octaves,
            "clamped": bool(c.clamped),
            "plan": {
                "build_options": p.build_options.decode(),
                "dims": p.dims,
                "global": list(p.global_[: max(p.dims, 0)]),
                "local": list(p.local[: max(p.dims, 0)]),
                "local_mem_bytes": p.local_mem_bytes,
                "values": values,
            },
        }

    def choose(self, shape=None, **named):
        """Returns the pick for a shape, given by name (choose(width=1920,
        ...)), as a mapping of those names, or as a sequence in shape_names
        order (a list, tuple, numpy array...; not a str): a dict with "config"
        (parameter name -> value; a spec's string parameter's value is its
        text and a float parameter's its float, as param_labels gives
        them), "source", "log_speedup",
        "outside_octaves", "clamped" (the prediction lay outside the
        model's training range and was clamped to it) and "plan"
        ("build_options", "dims", "global", "local", "local_mem_bytes", and
        "values": what the configuration sets each argument of
        plan_value_names to, a scalar's value or a local buffer's bytes)."""
        h = self._handle()
        arr, n = self._shape(shape, named)
        c, p = _Config(), _Plan()
        _check(_lib.augur_choose(h, arr, n, ctypes.byref(c), ctypes.byref(p)))
        return self._pick(c, p, arr, n)

    def candidates(self, k, shape=None, **named):
        """Returns up to k picks (dicts as choose returns), the model's best
        distinct configurations known to run on the device, choose's pick
        first: measure them once and record() the times. k above
        MAX_CANDIDATES counts as MAX_CANDIDATES."""
        h = self._handle()
        k = _int("candidates: k", k, ERR_ARG)
        if k < 1:
            raise Error(ERR_ARG, "augur: candidates: k must be >= 1, got %d" % k)
        arr, n = self._shape(shape, named)
        k = min(k, MAX_CANDIDATES)  # the structs are allocated here, k of each
        cs, ps, count = (_Config * k)(), (_Plan * k)(), ctypes.c_int32()
        _check(_lib.augur_candidates(h, arr, n, k, cs, ps, ctypes.byref(count)))
        return [self._pick(cs[i], ps[i], arr, n) for i in range(count.value)]

    def record(self, shape, config, time_ns):
        """Records a measurement in the wisdom file: shape as a mapping (name
        -> value) or a sequence, config as a mapping or a sequence in
        param_names order, its values as choose gives them (or a string or
        float parameter's number, its label's place in param_labels),
        time_ns in nanoseconds."""
        h = self._handle()
        arr, n = self._shape(shape, {})
        if isinstance(config, Mapping):
            missing = [p for p in self._param_names if p not in config]
            if missing or len(config) != len(self._param_names):
                raise Error(ERR_CONFIG, "augur: record: config needs exactly %s" % ", ".join(self._param_names))
            config = [config[p] for p in self._param_names]
        else:
            config = _sequence("record: config", config, ERR_CONFIG, self._param_names, "values")
        values = [self._number(self._param_names[i], v) if i < len(self._param_names) else _int("config value", v, ERR_CONFIG)
                  for i, v in enumerate(config)]
        carr = (ctypes.c_int64 * max(len(values), 1))(*values)
        if isinstance(time_ns, bool) or not isinstance(time_ns, numbers.Real):
            raise Error(ERR_ARG, "augur: record: time_ns is %r, not a number" % (time_ns,))
        _check(_lib.augur_record(h, arr, n, carr, len(values), float(time_ns)))

    def refresh(self):
        """Reads the records other choosers and processes appended to the
        wisdom file since this one last read it (record() reads them too)."""
        _check(_lib.augur_refresh(self._handle()))

    def close(self):
        """Closes the chooser and its wisdom file; closing twice is a no-op."""
        if self._h:
            h, self._h = self._h, 0
            if os.getpid() == _pid:  # a forked child only forgets it
                _check(_lib.augur_close(h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if getattr(self, "_h", 0) and os.getpid() == _pid:
                _lib.augur_close(self._h)
        except Exception:
            pass
