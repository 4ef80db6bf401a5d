#!/usr/bin/env python3
"""What translate_server withstands, measured: the hostile and odd requests of issue 47 sent
over loopback to a running server, with its answer, the time taken and the server's memory
(VmRSS now, VmHWM the peak, from /proc/PID/status). Prints a Markdown table.

  build/apps/translate_server RUN --port 0 --threads 1 &   # prints its port
  python3 bench/serve_probes.py --port PORT --pid $!
"""
import argparse
import gzip
import json
import socket
import statistics
import threading
import time


def memory_mb(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def connect(port, timeout=10.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_answer(s, deadline=10.0):
    """Status line and the bytes read until the head and its Content-Length body are in."""
    s.settimeout(deadline)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return head.decode(errors="replace"), body[:length].decode(errors="replace")
    except (socket.timeout, ConnectionError):
        return None, None


def status_of(head):
    return head.split("\r\n")[0].split(" ", 2)[1] if head else "no answer"


def header(head, name):
    for line in (head or "").split("\r\n")[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == name:
            return value.strip()
    return ""


def send_until_answered(s, first, piece, total):
    """Sends `first`, then `piece` until `total` bytes or an answer; returns bytes sent."""
    s.sendall(first)
    sent = 0
    s.setblocking(False)
    while sent < total:
        try:
            if s.recv(1, socket.MSG_PEEK):
                break
        except BlockingIOError:
            pass
        except ConnectionError:
            break
        try:
            sent += s.send(piece)
        except BlockingIOError:
            time.sleep(0.001)
        except (BrokenPipeError, ConnectionError):
            break
    s.setblocking(True)
    return sent


def post_head(path, extra):
    return f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


def exchange(port, request, half_close=False, deadline=10.0):
    """One request on a new connection: the answer's head and body."""
    s = connect(port, timeout=deadline)
    s.sendall(request)
    if half_close:
        s.shutdown(socket.SHUT_WR)
    return read_answer(s, deadline)


def post_json(path, body):
    return post_head(path, f"Content-Length: {len(body)}\r\n") + body


def probe(name, run, pid, rows):
    rss0, hwm0 = memory_mb(pid)
    start = time.monotonic()
    outcome = run()
    seconds = time.monotonic() - start
    time.sleep(0.3)
    rss1, hwm1 = memory_mb(pid)
    rows.append((name, outcome, f"{seconds:.2f}", f"{hwm1 - hwm0:+.1f}", f"{rss1 - rss0:+.1f}"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id (for its memory)")
    parser.add_argument("--slow", type=int, default=150, help="slow clients in the flood")
    parser.add_argument("--only", default="", help="run only the probes whose name contains this text")
    args = parser.parse_args()
    port, pid, rows = args.port, args.pid, []

    def gzip_bomb():
        bomb = gzip.compress(b'{"sentences": ["' + b"a" * (100 << 20) + b'"]}', 9)
        head, _ = exchange(port, post_head("/translate", f"Content-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n") + bomb)
        return f"{status_of(head)} ({len(bomb) // 1024} KB inflating to 100 MiB)"

    def chunked_flood():
        s = connect(port)
        chunk = b"10000\r\n" + b"a" * 65536 + b"\r\n"
        sent = send_until_answered(s, post_head("/translate", "Transfer-Encoding: chunked\r\n"), chunk, 100 << 20)
        head, _ = read_answer(s)
        return f"{status_of(head)} after {sent / 2**20:.1f} MiB of 100 MiB sent"

    def endless_chunk_line():
        s = connect(port)
        sent = send_until_answered(s, post_head("/translate", "Transfer-Encoding: chunked\r\n") + b"1;a=",
                                   b"b" * 65536, 100 << 20)
        head, _ = read_answer(s)
        return f"{status_of(head)} after {sent / 2**20:.1f} MiB of 100 MiB sent"

    def deep_json():
        body = b'{"sentences": ["hi"], "beam": 2, "length_penalty": ' + b"[" * 120000 + b"]" * 120000 + b"}"
        head, text = exchange(port, post_json("/translate", body))
        return f"{status_of(head)}: {json.loads(text)['error']}" if head else "no answer (the server died?)"

    def deep_json_burst():
        body = b"[" * 500000 + b"]" * 500000
        answers = [exchange(port, post_json("/translate", body))[0] for _ in range(20)]
        return f"{sum(status_of(h) == '400' for h in answers)} of 20 answered 400"

    def empty_objects():
        body = b'{"sentences": ["a"], "x": [' + b",".join([b"{}"] * 349000) + b"]}"
        head, text = exchange(port, post_json("/translate", body), deadline=120)
        return f"{status_of(head)}: {json.loads(text)['error']}" if head else "no answer"

    def empty_lists_at_once():
        body = b'{"sentences": ["a"], "x": [' + b",".join([b"[]"] * 346000) + b"]}"
        answers = [None] * 64

        def send(i):
            answers[i] = exchange(port, post_json("/translate", body), deadline=120)[0]

        threads = [threading.Thread(target=send, args=(i,)) for i in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return f"{sum(status_of(h) == '400' for h in answers if h)} of 64 answered 400"

    def distinct_keys():
        body = b"{" + b",".join(b'"k%d": 0' % i for i in range(88000)) + b"}"
        head, text = exchange(port, post_json("/translate", body), deadline=120)
        return f"{status_of(head)}: {json.loads(text)['error']}" if head else "no answer"

    def number_overflow():
        head, text = exchange(port, post_json("/translate", b'{"sentences": ["a"], "beam": 1e999}'))
        return f"{status_of(head)}: {json.loads(text)['error']}" if head else "no answer"

    def long_attention():
        sentence = "i " * 900
        head, text = exchange(port, post_json("/attention", json.dumps({"sentence": sentence}).encode()))
        return f"{status_of(head)} ({len(text)} bytes)"

    def oversized_decoding():
        # 64 sentences of 999 words at beam 16: more decoding than the request timeout allows.
        # A one-word request sent a second later waits behind it: answered once the worker
        # is free, which is when the big one's decoding ends or is stopped.
        big = json.dumps({"sentences": ["a " * 999] * 64, "beam": 16}).encode()
        answers = {}

        def send(name, body, delay):
            time.sleep(delay)
            s = connect(port, 120)
            s.sendall(post_json("/translate", body))
            head, _ = read_answer(s, 120)
            answers[name] = (status_of(head), time.monotonic() - start)

        start = time.monotonic()
        threads = [threading.Thread(target=send, args=("big", big, 0)),
                   threading.Thread(target=send, args=("small", b'{"sentences": ["hi"]}', 1))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        (big_status, big_s), (small_status, small_s) = answers["big"], answers["small"]
        return f"{big_status} after {big_s:.1f} s; a one-word request sent 1 s later: {small_status} after {small_s - 1:.1f} s"

    def no_length():
        head, _ = exchange(port, post_head("/translate", "") + b'{"sentences": ["' + b"a" * 100000)
        return status_of(head)

    def header_flood():
        s = connect(port)
        sent = send_until_answered(s, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                                   b"X-Header-Of-Fifty-Bytes: abcdefghijklmnopqrstuvwx\r\n", 20_000_000)
        head, _ = read_answer(s)
        return f"{status_of(head)} after {sent // 1024} KB of 20 MB sent"

    def slow_flood():
        slow = []
        for _ in range(args.slow):
            try:
                c = connect(port)
                c.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                slow.append(c)
            except OSError:
                pass
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                for c in slow:
                    try:
                        c.send(b"a")
                    except OSError:
                        pass
                stop.wait(1.0)

        thread = threading.Thread(target=trickle)
        thread.start()
        latencies, answered = [], 0
        for _ in range(10):
            start = time.monotonic()
            c = connect(port)
            c.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head, _ = read_answer(c, 5)
            if status_of(head) == "200":
                answered += 1
                latencies.append((time.monotonic() - start) * 1000)
            c.close()
            time.sleep(0.2)
        stop.set()
        thread.join()
        for c in slow:
            c.close()
        median = f"{statistics.median(latencies):.1f}" if latencies else "-"
        worst = f"{max(latencies):.1f}" if latencies else "-"
        return f"/health answered {answered}/10 while {len(slow)} trickle (median {median} ms, max {worst} ms)"

    def foreign_host():
        head, body = exchange(port, b"GET /model HTTP/1.1\r\nHost: rebind.evil.example\r\n\r\n")
        return f"{status_of(head)}: {json.loads(body)['error'] if body else ''}"

    def pipelined():
        # The answers may come in one read: count them in the bytes, not one read each.
        s = connect(port)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 3)
        s.settimeout(5)
        data = b""
        try:
            while data.count(b"HTTP/1.1 200") < 3:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            pass
        return f"{data.count(b'HTTP/1.1 200')} of 3 answered"

    def half_closed():
        head, _ = exchange(port, post_json("/translate", b'{"sentences": ["I am hungry."]}'), half_close=True)
        return status_of(head)

    def options():
        head, _ = exchange(port, b"OPTIONS /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return f"{status_of(head)}, Allow: {header(head, 'allow')}"

    def huge_beam():
        head, text = exchange(port, post_json("/translate", b'{"sentences": ["hi"], "beam": 9223372036854775808}'))
        return f"{status_of(head)}: {json.loads(text)['error']}"

    def idle_close():
        s = connect(port)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        read_answer(s)
        start = time.monotonic()
        s.settimeout(30)
        try:
            s.recv(1)
        except OSError:
            pass
        return f"closed after {time.monotonic() - start:.2f} s idle"

    def connection_flood():
        held = []
        for _ in range(1000):
            try:
                held.append(connect(port, 2))
            except OSError:
                break
        start = time.monotonic()
        c = connect(port)
        c.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head, _ = read_answer(c, 5)
        ms = (time.monotonic() - start) * 1000
        for h in held:
            h.close()
        return f"{len(held)} idle connections held: /health {status_of(head)} in {ms:.1f} ms"

    for name, run in [("gzip body (Content-Encoding: gzip)", gzip_bomb), ("chunked body of 100 MiB", chunked_flood),
                      ("a chunk-size line that never ends (1;a=bbb...)", endless_chunk_line),
                      ("a value nested 120,000 levels deep (240 KB)", deep_json),
                      ("20 bodies of 500,000 nested lists (1 MB each)", deep_json_burst),
                      ("a body of 349,000 empty objects (1 MB)", empty_objects),
                      ("64 bodies of 346,000 empty lists at once (1 MB each)", empty_lists_at_once),
                      ("a body of 88,000 distinct keys (1 MB)", distinct_keys),
                      ('"beam": 1e999', number_overflow),
                      ("/attention on a 900-word sentence", long_attention),
                      ("64 sentences of 999 words, beam 16", oversized_decoding),
                      ("POST without Content-Length or chunking", no_length),
                      ("400,000 headers", header_flood), (f"{args.slow} slow clients, a byte a second", slow_flood),
                      ("1,000 connections opened at once", connection_flood),
                      ("Host: rebind.evil.example", foreign_host), ("3 pipelined requests", pipelined),
                      ("request, then half-close", half_closed), ("OPTIONS /translate", options),
                      ('"beam": 9223372036854775808', huge_beam), ("idle keep-alive connection", idle_close)]:
        if args.only in name:
            probe(name, run, pid, rows)

    print("| probe | answer | seconds | peak RSS (MB) | RSS after (MB) |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
