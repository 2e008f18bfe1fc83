# SPDX-License-Identifier: MIT
# The module around the sorts: refused inputs and their messages, devices and choosing one, stats, and
# the GIL released while the GPU works.
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import vksort
from conftest import same_bytes, stable_order


@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint16, np.float16, np.complex64, object, "U3", "M8[s]",
                                   np.dtype([("a", "<u4")])], ids=str)
def test_unsupported_dtypes_are_refused_naming_the_supported_ones(dtype):
    a = np.zeros(4, dtype=dtype)
    for call in (lambda: vksort.sort(a), lambda: vksort.sort_by_key(a, np.arange(4))):
        with pytest.raises(TypeError, match="uint32, int32, float32, uint64, int64 or float64"):
            call()


@pytest.mark.parametrize("shape", [(), (2, 3), (1, 1, 4)])
def test_arrays_that_are_not_1d_are_refused(shape):
    with pytest.raises(ValueError, match="1-D"):
        vksort.sort(np.zeros(shape, dtype=np.float32))


def test_the_refusal_of_2d_arrays_gives_advice_that_works_for_np_matrix_too():
    # An np.matrix's own ravel() stays 2-D ((1, n)); the advice np.ravel(a) gives 1-D for it as for arrays.
    with pytest.warns(PendingDeprecationWarning):  # NumPy's own, on creating a matrix
        m = np.matrix([[3, 1], [2, 0]], dtype=np.uint32)
    with pytest.raises(ValueError, match=r"np\.ravel\(a\)") as refused:
        vksort.sort(m)
    assert "a.ravel()" not in str(refused.value)
    assert list(vksort.sort(np.ravel(m))) == [0, 1, 2, 3]


def test_devices_lists_the_one_device_takes():
    listed = vksort.devices()
    assert listed and sum(d["chosen"] for d in listed) == 1
    for d in listed:
        assert {"index", "name", "vendor", "type", "usable", "limits", "features"} <= d.keys()
        assert d["limits"]["max_shared_memory"] > 0 and len(d["limits"]["max_workgroup_count"]) == 3
    chosen = next(d for d in listed if d["chosen"])
    if "VKSORT_DEVICE" not in os.environ:
        assert vksort.default_device().name == chosen["name"]


def test_a_device_chosen_by_index_or_name_sorts():
    usable = [d for d in vksort.devices() if d["usable"]]
    by_index = vksort.Device(usable[0]["index"])
    by_name = vksort.Device(usable[0]["name"][:5].upper())  # a case-insensitive part of the name
    assert by_index.name == usable[0]["name"] and by_name.name == usable[0]["name"]
    a = np.array([5, -1, 3], dtype=np.int64)
    assert same_bytes(by_name.sort(a, descending=True), np.array([5, 3, -1], dtype=np.int64))
    assert by_name.last_stats is not None and by_index.last_stats is None
    with pytest.raises(vksort.Error, match="no-such-gpu") as raised:
        vksort.Device("no-such-gpu")
    # The library's Status code, to branch on without parsing the message.
    assert raised.value.code == "invalid_argument"
    assert isinstance(raised.value, RuntimeError)


def test_validation_layer_follows_the_tests_request():
    # conftest.py asks for the layer wherever it is installed: then every sort here ran under it.
    wanted = os.environ.get("VKSORT_VALIDATION") == "1"
    assert vksort.default_device()._core.validation_enabled() == wanted


def test_release_cached_memory_leaves_later_sorts_right():
    device = vksort.Device()
    rng = np.random.default_rng(7)
    a = rng.integers(0, 2**32, 3001, dtype=np.uint32)
    assert same_bytes(device.sort(a), np.sort(a, kind="stable"))
    device.release_cached_memory()
    device.release_cached_memory()  # twice: nothing left to free is no error
    keys = rng.integers(-2**40, 2**40, 2049, dtype=np.int64)
    values = np.arange(2049, dtype=np.uint32)
    got_keys, got_values = device.sort_by_key(keys, values)
    order = np.argsort(keys, kind="stable")
    assert same_bytes(got_keys, keys[order]) and same_bytes(got_values, values[order])


def test_stats_of_the_last_sort():
    vksort.sort(np.arange(5000, 0, -1, dtype=np.uint32))
    stats = vksort.last_stats()
    assert isinstance(stats, vksort.Stats)
    if vksort.default_device().info["features"]["timestamps"]:
        assert stats.gpu_ms > 0 and stats.phases and all(ms >= 0 for ms in stats.phases.values())
        # The phases partition the sort's first-to-last timestamp interval (the anchor's time counts
        # to the first phase: 5% failed under load while it was left out).
        assert sum(stats.phases.values()) == pytest.approx(stats.gpu_ms, rel=1e-6)
    else:
        assert stats.gpu_ms is None and not stats.phases
    assert stats.facts  # the algorithm's facts: "tile", passes or rounds, ...
    vksort.sort_by_key(np.arange(4, dtype=np.uint32), np.zeros((4, 3), dtype=np.uint8))
    assert vksort.last_stats() is not stats


def test_the_gil_is_released_while_the_gpu_sorts():
    # A thread records how long it waited between steps of a Python loop. Were the GIL held during the
    # sort, that thread would stand still for all of it; released, it runs throughout.
    keys = np.random.default_rng(1).integers(0, 2**63, 2**19, dtype=np.int64)
    vksort.sort(keys[:1000])  # device and pipelines ready: the timed call is the sort itself
    stop, gaps = threading.Event(), []

    def count():
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            if now - last > 0.005:
                gaps.append((last, now))
            last = now

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.05)
    start = time.perf_counter()
    result = vksort.sort(keys)
    end = time.perf_counter()
    stop.set()
    counter.join()
    assert same_bytes(result, np.sort(keys, kind="stable"))
    longest = max([min(b, end) - max(a, start) for a, b in gaps if b > start and a < end], default=0.0)
    assert end - start > 0.05, "the sort was too quick to tell"
    assert longest < 0.5 * (end - start), f"the thread stood still {longest:.3f} s of the sort's {end - start:.3f} s"


def test_threads_sorting_at_once_on_one_device():
    # The GIL is released, so these calls overlap in the library (safe from several threads per Device).
    rng = np.random.default_rng(5)
    inputs = [rng.integers(0, 50, 20000 + i).astype(dtype) for i, dtype in enumerate([np.uint32, np.int64] * 3)]
    results = [None] * len(inputs)

    def work(i):
        results[i] = vksort.sort_by_key(inputs[i], np.arange(len(inputs[i]), dtype=np.uint32), descending=i % 2 == 1)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, a in enumerate(inputs):
        order = stable_order(a, descending=i % 2 == 1)
        assert same_bytes(results[i][0], a[order]) and same_bytes(results[i][1], order.astype(np.uint32))


def test_a_forked_child_gets_its_own_default_device_and_refuses_the_parents():
    # The parent's device in a child (fork) waited forever in the driver, deaf to Ctrl-C: the module's
    # functions now make a device in the child, and a Device object of the parent's raises.
    parent = vksort.Device()
    vksort.sort(np.arange(3.0))
    pid = os.fork()
    if pid == 0:  # the child: exits 0 only if both hold; os._exit skips pytest's own handlers
        code = 1
        try:
            ok = same_bytes(vksort.sort(np.arange(999.0, -1.0, -1.0)), np.arange(1000.0))
            try:
                parent.sort(np.arange(3.0))
            except vksort.Error as e:
                ok = ok and "before fork()" in str(e)
            else:
                ok = False
            code = 0 if ok else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
    assert same_bytes(parent.sort(np.array([2.0, 1.0])), np.array([1.0, 2.0]))  # the parent's still works


def test_device_arguments_are_checked_by_type():
    # validation="no" is truthy and turned the layer on; Device(True) was looked up as the name "True".
    for bad in ("no", 1, "False"):
        with pytest.raises(TypeError, match="validation must be True or False"):
            vksort.Device(validation=bad)
    for bad in (True, 1.0, [0]):
        with pytest.raises(TypeError, match="an index \\(int\\) or a name \\(str\\)"):
            vksort.Device(bad)
    assert vksort.Device(np.int64(0)).name == vksort.devices()[0]["name"]
    # "" is a part of every name: it opened the default device (a script's unset variable, unnoticed).
    with pytest.raises(ValueError, match="an empty name names no device"):
        vksort.Device("")


def test_a_negative_index_is_refused_not_looked_up_as_a_name():
    # The library took "-1" for a name: on a "Tesla V100-SXM2-16GB" Device(-1) opened it, elsewhere it
    # said no device matches "-1"; Python's negative index (the last device) was meant by neither.
    for bad in (-1, np.int64(-2)):
        with pytest.raises(ValueError, match="index must be 0 or more"):
            vksort.Device(bad)


def test_digits_are_an_index_and_the_refusal_says_so():
    # Digits select by index only (as a part of a name, "1" took llvmpipe's "LLVM 15.0.6"): a number from
    # a device's name that is no index is refused with how to name that device instead.
    import re
    for listed in vksort.devices():
        if listed["usable"]:
            assert vksort.Device(str(listed["index"])).name == listed["name"]
    name = next(d for d in vksort.devices() if d["usable"])["name"]
    numbers = [n for n in re.findall(r"\d+", name) if int(n) >= len(vksort.devices())]
    if not numbers:
        pytest.skip(f"the device name {name!r} holds no number that is not also an index")
    with pytest.raises(vksort.Error, match="digits select a device by its index"):
        vksort.Device(numbers[0])


def test_last_stats_before_any_sort_is_none_and_creates_no_device():
    # It made the default device first (and so raised where there is no Vulkan device).
    code = ("import vksort; assert vksort.last_stats() is None; assert vksort._default is None; "
            "import numpy; vksort.sort(numpy.arange(3.0)); assert vksort.last_stats() is not None")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("bad", ["yes", 1, None, np.array([True, False])], ids=repr)
def test_flags_must_be_true_or_false(bad):
    # descending reached pybind11's signature error; total_order took any truthy value as True.
    a = np.array([2.0, 1.0])
    for call in (lambda: vksort.sort(a, bad), lambda: vksort.argsort(a, descending=bad),
                 lambda: vksort.sort(a, total_order=bad), lambda: vksort.sort_by_key(a, a, total_order=bad)):
        with pytest.raises(TypeError, match="must be True or False"):
            call()
    assert same_bytes(vksort.sort(a, np.bool_(True)), np.array([2.0, 1.0]))


def test_flags_are_checked_before_the_keys_are_read():
    # A bad descending was refused only after the keys had been converted, copied and scanned for NaNs
    # (seconds for large inputs): every call now checks its flags first, never touching the keys.
    class Keys:
        reads = 0

        def __array__(self, dtype=None, copy=None):
            Keys.reads += 1
            return np.array([2.0, 1.0])

    offsets = np.array([0, 2], dtype=np.uint32)
    for call in (lambda: vksort.sort(Keys(), "yes"), lambda: vksort.argsort(Keys(), descending="yes"),
                 lambda: vksort.sort_by_key(Keys(), [1, 2], descending=1),
                 lambda: vksort.segmented_sort(Keys(), offsets, descending=None),
                 lambda: vksort.segmented_sort_by_key(Keys(), [1, 2], offsets, total_order="no")):
        with pytest.raises(TypeError, match="must be True or False"):
            call()
    assert Keys.reads == 0
    assert same_bytes(vksort.sort(Keys(), True), np.array([2.0, 1.0]))


def test_too_many_keys_are_refused_before_any_copy():
    # 2^31 keys (a broadcast view: no memory) were copied and scanned first (8 GiB, ~40 s), then refused
    # by the library as a RuntimeError.
    huge = np.broadcast_to(np.float32(1), 2**31)
    start = time.monotonic()
    for call in (lambda: vksort.sort(huge), lambda: vksort.argsort(huge, dtype="uint32"),
                 lambda: vksort.sort_by_key(huge, huge)):
        with pytest.raises(ValueError, match="fewer than 2\\^31 keys"):
            call()
    assert time.monotonic() - start < 10


def test_interpreter_exit_while_a_daemon_thread_sorts():
    # At exit CPython ends daemon threads that want the GIL back with pthread_exit, which unwound through
    # the GIL release's noexcept destructor: std::terminate, exit 134 after the program had finished.
    import subprocess
    import sys
    program = (
        "import threading, time, numpy as np, vksort\n"
        "a = np.random.default_rng(0).random(50_000)\n"
        "device = vksort.Device()\n"
        "def loop():\n"
        "    while True:\n"
        "        vksort.sort(a)\n"
        "        device.segmented_sort(a, [0, 100, len(a)])\n"
        "threading.Thread(target=loop, daemon=True).start()\n"
        "time.sleep(0.5)\n"
        "print('done')\n"
    )
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout == "done\n"
        assert "terminate" not in run.stderr
