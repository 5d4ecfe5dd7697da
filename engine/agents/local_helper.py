"""The local agent's helper: the one process that acts on the local machine for a run.

The local agent (engine/agents/local.py) starts it, as the run user and with the run's
environment, on the run's first local action, and hands it this source on its standard input
(the run user may not be able to read the repository). Only the standard library, and Python
3.8 or later, so that it runs with the system's interpreter.

The protocol is one JSON object a line in each direction, bytes in base64. A request is
``{"id": n, "op": name, ...arguments}``; its answer is ``{"id": n, "result": value}`` or
``{"id": n, "error": {"errno": "EACCES", "strerror": ..., "filename": ...}}`` (or
``{"message": ...}`` for what is not an OS error). A ``run`` also sends ``{"id": n, "started":
pid}`` once its process is started (the process leads a process group of its own) and
``{"id": n, "out": [lines], "err": false|true}`` as output arrives. ``{"op": "cancel",
"target": n}`` stops a run (SIGTERM to its process group and its descendants, SIGKILL 2 s later);
``{"id": n, "op": "close"}`` kills every process the helper's runs started, answers
``{"left": [pids it could not kill]}`` and exits; so does the end of its standard input.

Requests are served each on a thread of its own, so that a slow one (a long process, a large
file) never holds the others. The helper is a child subreaper: a process its runs started that
leaves its parent (``setsid``, a double fork) becomes the helper's child, and dies with it. Its
parent-death signal is SIGTERM, which it handles by killing all of them and exiting: when the
process that started it dies, however it died, nothing is left.
"""

import binascii
import contextlib
import errno as errno_codes
import json
import os
import signal
import stat as stat_module
import sys
import threading
import time

LINE_LIMIT = 1 << 20  # bytes of one output line; what is past it is left out, with a note
CHUNK = 1 << 16
KILL_GRACE_SECONDS = 2.0
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def encode(data):
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def decode(text):
    return binascii.a2b_base64(text)


# ---- output lines


class Lines:
    """Splits a stream's bytes into lines of text; a line past LINE_LIMIT bytes is cut, with a
    note saying how much was left out."""

    def __init__(self):
        self.pending = bytearray()
        self.dropped = 0

    def feed(self, data):
        lines = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            self._add(data[start:end])
            lines.append(self._line())
            start = end + 1
        self._add(data[start:])
        return lines

    def finish(self):
        """The last line, when the stream did not end with a line break."""
        return [self._line()] if self.pending or self.dropped else []

    def _add(self, piece):
        room = LINE_LIMIT - len(self.pending)
        if room >= len(piece):
            self.pending += piece
        else:
            self.pending += piece[: max(room, 0)]
            self.dropped += len(piece) - max(room, 0)

    def _line(self):
        text = bytes(self.pending).decode("utf-8", "replace").rstrip("\r")
        if self.dropped:
            text += f" [line cut: {self.dropped} bytes past the first {LINE_LIMIT} left out]"
        self.pending = bytearray()
        self.dropped = 0
        return text


# ---- processes


def process_table():
    """Every process's (parent, state), from /proc."""
    table: dict = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue  # gone meanwhile
        fields = data[data.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            table[int(name)] = (int(fields[1]), fields[0].decode("ascii", "replace"))
    return table


def descendants(root, table=None):
    """The processes under ``root`` that are alive (zombies are dead: only waiting to be
    reaped), and the zombies among them."""
    children: dict = {}
    for pid, (parent, state) in (process_table() if table is None else table).items():
        children.setdefault(parent, []).append((pid, state))
    alive: list = []
    zombies: list = []
    pending = [root]
    while pending:
        for pid, state in children.get(pending.pop(), ()):
            (zombies if state in ("Z", "X") else alive).append(pid)
            pending.append(pid)
    return alive, zombies


def is_alive(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return data[data.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def signal_group(group, sig):
    with contextlib.suppress(OSError):
        os.killpg(group, sig)


def signal_each(pids, sig):
    """Send ``sig`` to each process; the ones this user may not signal are returned."""
    refused = []
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
        except PermissionError:
            refused.append(pid)
    return refused


class Running:
    def __init__(self, process):
        self.process = process
        self.done = threading.Event()
        self.cancelled = False


class Helper:
    def __init__(self, parent, home, http_source):
        self.parent = parent
        self.home = home  # the working directory it was started in
        self.http_source = http_source
        self.http_send = None
        self.pid = os.getpid()
        self.write_lock = threading.Lock()
        self.lock = threading.Lock()
        self.runs = {}  # request id: Running
        self.spawning = 0
        self.closing = False
        # held by the thread that shuts down until it exits the process: a second caller (the
        # main thread at the end of its input while a run's thread found the agent gone) waits
        # for that instead of returning, and ending the interpreter, halfway through the kills
        self.closing_lock = threading.RLock()
        # a byte for each signal the helper gets (SIGCHLD: a child ended), written by Python's
        # C signal handler (main sets it as the wakeup fd): a handler in Python that took a lock
        # could be called again, nested, while it held it, and wait for itself forever
        self.signals, self.signalled = os.pipe()
        os.set_blocking(self.signalled, False)

    # -- the protocol

    def send(self, message):
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8", "replace")
        view = memoryview(data)
        with self.write_lock:
            try:
                while view:
                    view = view[os.write(1, view) :]
                agent_gone = False
            except OSError:  # the agent is gone: so is the run
                agent_gone = True
        if agent_gone:
            self.shutdown()  # outside the lock, which the shutdown may need for its answer

    def serve(self):
        pending = bytearray()
        scanned = 0
        while True:
            chunk = os.read(0, CHUNK)
            if not chunk:
                break
            pending += chunk
            while True:
                end = pending.find(b"\n", scanned)
                if end < 0:
                    scanned = len(pending)
                    break
                line = bytes(pending[:end])
                del pending[: end + 1]
                scanned = 0
                if line.strip():
                    self.dispatch(json.loads(line))
        self.shutdown()

    def dispatch(self, request):
        op = request.get("op")
        if op == "cancel":
            with self.lock:
                running = self.runs.get(request.get("target"))
            if running is not None:
                threading.Thread(target=self.stop, args=(running,), daemon=True).start()
            return
        if op == "close":
            self.shutdown(request.get("id"))
            return
        threading.Thread(target=self.answer, args=(request,), daemon=True).start()

    def answer(self, request):
        number = request.get("id")
        try:
            operation = OPERATIONS[request["op"]]
            result = operation(self, request)
        except OSError as error:
            filename = error.filename if isinstance(error.filename, str) else None
            failure = {
                "errno": errno_codes.errorcode.get(error.errno or 0, ""),
                "strerror": error.strerror or str(error),
                "filename": filename,
            }
            self.send({"id": number, "error": failure})
        except Exception as error:  # a fault of the helper's: said, never silent
            self.send(
                {"id": number, "error": {"message": type(error).__name__ + ": " + str(error)}}
            )
        else:
            self.send({"id": number, "result": result})

    # -- processes

    def run(self, request):
        import subprocess  # here: a run that starts no process does without it

        number = request["id"]
        environment = dict(os.environ)
        environment.update(request.get("env") or {})
        data = decode(request["stdin"]) if request.get("stdin") is not None else None
        with self.lock:
            self.spawning += 1
        try:
            process = subprocess.Popen(
                request["command"],
                # the folder it started in is entered already (its path may not be passable)
                cwd=None if request.get("cwd") in (None, "", self.home) else request["cwd"],
                env=environment,
                stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, so a kill reaches its children
            )
            running = Running(process)
            with self.lock:
                self.runs[number] = running
        finally:
            with self.lock:
                self.spawning -= 1
        try:
            self.send({"id": number, "started": process.pid})
            if data is not None:
                threading.Thread(target=feed, args=(process.stdin, data), daemon=True).start()
            self.pump(number, process)
            code = process.wait()
        finally:
            running.done.set()
            with self.lock:
                self.runs.pop(number, None)
        return {"code": code, "cancelled": running.cancelled}

    def pump(self, number, process):
        import selectors

        selector = selectors.DefaultSelector()
        for stream, is_error in ((process.stdout, False), (process.stderr, True)):
            selector.register(stream.fileno(), selectors.EVENT_READ, (stream, is_error, Lines()))
        try:
            while selector.get_map():
                for key, _ in selector.select():
                    stream, is_error, lines = key.data
                    chunk = os.read(key.fd, CHUNK)
                    if chunk:
                        found = lines.feed(chunk)
                    else:
                        selector.unregister(key.fd)
                        stream.close()
                        found = lines.finish()
                    if found:
                        self.send({"id": number, "out": found, "err": is_error})
        finally:
            selector.close()

    def stop(self, running):
        """SIGTERM to the process's group and to every process under it, SIGKILL to those left
        after a grace period. (What left the process's tree before the cancel is the helper's
        child now, and dies when the helper closes.)"""
        running.cancelled = True
        pid = running.process.pid
        doomed = set(descendants(pid)[0])
        signal_group(pid, signal.SIGTERM)
        signal_each(doomed, signal.SIGTERM)
        deadline = time.monotonic() + KILL_GRACE_SECONDS
        running.done.wait(KILL_GRACE_SECONDS)
        while time.monotonic() < deadline and any(is_alive(p) for p in doomed):
            time.sleep(0.02)
        doomed.update(descendants(pid)[0])
        signal_group(pid, signal.SIGKILL)
        signal_each([p for p in doomed if is_alive(p)], signal.SIGKILL)

    def reap_orphans(self):
        """Processes that left their parent are the helper's children: reaped here once they
        end (the runs' own processes are reaped by their threads)."""
        again = False
        while not self.closing:
            if not again:
                os.read(self.signals, 512)
            # the table first, then the runs: a run's process that started and ended between
            # the two is in neither, never taken for an orphan (its exit code reaped from under
            # its run's wait, which would then read 0)
            table = process_table()
            with self.lock:
                again = bool(self.spawning)  # a new process may not be in self.runs yet: later
                ours = None if again else {running.process.pid for running in self.runs.values()}
            if ours is not None:
                for pid, (parent, state) in table.items():
                    if parent == self.pid and state == "Z" and pid not in ours:
                        with contextlib.suppress(OSError):
                            os.waitpid(pid, os.WNOHANG)
            time.sleep(0.5)

    def shutdown(self, number=None):
        """Kill every process under the helper (SIGTERM, then SIGKILL after a grace period, and
        again for anything that forked meanwhile), say so, exit."""
        with self.closing_lock:
            if not self.closing:  # else: the signal handler, called in the middle of this
                self.closing = True
                self._kill_all_and_exit(number)

    def _kill_all_and_exit(self, number):
        refused = []
        alive, _ = descendants(self.pid)
        if alive:
            refused = signal_each(alive, signal.SIGTERM)
            deadline = time.monotonic() + KILL_GRACE_SECONDS
            while time.monotonic() < deadline:
                reap()
                alive, _ = descendants(self.pid)
                if not [pid for pid in alive if pid not in refused]:
                    break
                time.sleep(0.01)
            for _ in range(100):
                alive, _ = descendants(self.pid)
                alive = [pid for pid in alive if pid not in refused]
                if not alive:
                    break
                refused += signal_each(alive, signal.SIGKILL)
                time.sleep(0.005)
                reap()
        if number is not None:
            try:
                with self.write_lock:
                    message = json.dumps({"id": number, "result": {"left": refused}})
                    os.write(1, (message + "\n").encode())
            except OSError:
                pass
        os._exit(0)


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def feed(stream, data):
    try:
        stream.write(data)
        stream.close()
    except OSError:  # the process did not read it all
        pass


# ---- files


def info(path, result):
    return {
        "path": path,
        "name": os.path.basename(path.rstrip("/")) or path,
        "is_directory": stat_module.S_ISDIR(result.st_mode),
        "size": result.st_size,
        "modified": result.st_mtime,
        "mode": stat_module.S_IMODE(result.st_mode),
    }


def read_file(helper, request):
    with open(request["path"], "rb") as handle:
        return encode(handle.read())


def write_file(helper, request):
    path = request["path"]
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(decode(request["data"]))
    if request.get("mode") is not None:
        os.chmod(path, request["mode"])


def read_chunk(helper, request):
    with open(request["path"], "rb") as handle:
        handle.seek(request["offset"])
        return encode(handle.read(request["size"]))


def write_chunk(helper, request):
    path = request["path"]
    if request["offset"] == 0:
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
    with open(path, "wb" if request["offset"] == 0 else "r+b") as handle:
        handle.seek(request["offset"])
        handle.write(decode(request["data"]))


def stat(helper, request):
    path = request["path"]
    try:
        return info(path, os.stat(path))
    except (FileNotFoundError, NotADirectoryError):
        return None


def list_dir(helper, request):
    found = []
    pending = [request["path"]]
    while pending:
        current = pending.pop()
        with os.scandir(current) as entries:
            for entry in entries:
                item = info(entry.path, entry.stat(follow_symlinks=False))
                found.append(item)
                if request.get("recursive") and item["is_directory"]:
                    pending.append(entry.path)
    return sorted(found, key=lambda item: item["path"])


def delete(helper, request):
    import shutil

    path = request["path"]
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def move(helper, request):
    import shutil

    shutil.move(request["source"], request["destination"])


def make_dirs(helper, request):
    os.makedirs(request["path"], exist_ok=True)


def set_mode(helper, request):
    os.chmod(request["path"], request["mode"])


def set_modified(helper, request):
    os.utime(request["path"], (request["modified"], request["modified"]))


def environment(helper, request):
    return {
        name.decode("utf-8", "replace"): value.decode("utf-8", "replace")
        for name, value in os.environb.items()
    }


def http(helper, request):
    if helper.http_send is None:
        namespace = {"__name__": "otterweb_http_request"}
        exec(compile(helper.http_source, "http_request.py", "exec"), namespace)
        helper.http_send = namespace["send"]
    return helper.http_send(request["request"])


OPERATIONS = {
    "run": Helper.run,
    "read_file": read_file,
    "write_file": write_file,
    "read_chunk": read_chunk,
    "write_chunk": write_chunk,
    "stat": stat,
    "list_dir": list_dir,
    "delete": delete,
    "move": move,
    "make_dirs": make_dirs,
    "set_mode": set_mode,
    "set_modified": set_modified,
    "environment": environment,
    "http": http,
}


# ---- start


def main(http_source=""):
    """``python -I -S -c <bootstrap> otterweb-local-helper <parent pid> <working directory>``"""
    parent = int(sys.argv[2])
    helper = Helper(parent, sys.argv[3], http_source)
    signal.signal(signal.SIGTERM, lambda *_: helper.shutdown())
    signal.signal(signal.SIGCHLD, lambda *_: None)  # its byte on helper.signals is what counts
    signal.set_wakeup_fd(helper.signalled, warn_on_full_buffer=False)
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        # no other process of the run user may open its /proc files (its pipes to the agent)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the signal was set
        helper.shutdown()
    threading.Thread(target=helper.reap_orphans, daemon=True).start()
    try:
        helper.serve()
    finally:
        helper.shutdown()
