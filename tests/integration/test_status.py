"""Status and metrics with any send backend: nginx's stub_status format,
and JSON and Prometheus text with connections, requests, body bytes,
responses by status class and per server; the nic backend's counters
join them when it is the backend."""

import json
import re
import socket

from nicd import DEADLINE, Server, check, get, wait_until

CONF = """
location = /stub { stub_status; }
location = /status { nicd_status; }
location = /metrics { nicd_metrics; }
server { server_name other.test; location / { return 404; } }
"""


def status(port):
    r = get(port, "/status")
    check(r.status == 200 and r.header("Content-Type") == "application/json",
          repr(r))
    return json.loads(r.body)


def test_stub_status_as_nginx_writes_it():
    with Server(conf=CONF) as s:
        s.put("f", b"x" * 100)
        for _ in range(3):
            check(get(s.port, "/f").status == 200, "file")
        r = get(s.port, "/stub")
        check(r.status == 200 and r.header("Content-Type") == "text/plain",
              repr(r))
        m = re.match(rb"Active connections: (\d+) \nserver accepts handled "
                     rb"requests\n (\d+) (\d+) (\d+) \nReading: (\d+) "
                     rb"Writing: (\d+) Waiting: (\d+) \n$", r.body)
        check(m, "stub_status body %r" % r.body)
        active, acc, handled, reqs = (int(x) for x in m.groups()[:4])
        check(active >= 1 and acc == handled and acc >= 4 and reqs >= 4,
              "counts %r" % (m.groups(),))


def stub_counts(port):
    r = get(port, "/stub")
    m = re.search(rb"Active connections: (\d+) .*Reading: (\d+) "
                  rb"Writing: (\d+) Waiting: (\d+)", r.body, re.S)
    check(m, "stub_status body %r" % r.body)
    return tuple(int(x) for x in m.groups())


def test_connection_states_counted_as_they_change():
    """Reading, Writing and Waiting follow each connection at once, as
    nginx's (they were a worker's count at its last tick): an idle
    connection waits, one with half a head reads, the stub request itself
    writes; $connections_* carry the same counts (issue 41)."""
    conf = CONF + """
location = /vars {
    add_header X-Counts "$connections_active $connections_reading $connections_writing $connections_waiting";
    return 204;
}
"""
    with Server(conf=conf) as s:
        check(stub_counts(s.port) == (1, 0, 1, 0), "alone: %r"
              % (stub_counts(s.port),))
        a = socket.create_connection(("127.0.0.1", s.port), timeout=DEADLINE)
        wait_until(lambda: stub_counts(s.port) == (2, 0, 1, 1),
                   "an idle connection counted as waiting")
        a.sendall(b"GET /f HTTP/1.1\r\n")
        wait_until(lambda: stub_counts(s.port) == (2, 1, 1, 0),
                   "half a head counted as reading")
        # (the last poll's connection may not be seen closed yet, by
        # another worker thread: wait, as above)
        wait_until(lambda: get(s.port, "/vars").header("X-Counts")
                   == "2 1 1 0", "variables as stub_status counts")
        a.sendall(b"Host: x\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = a.recv(65536)
            check(chunk, "no answer")
            data += chunk
        wait_until(lambda: stub_counts(s.port) == (2, 0, 1, 1),
                   "answered: waiting again")
        a.close()
        wait_until(lambda: stub_counts(s.port) == (1, 0, 1, 0),
                   "closed: not counted")


def test_json_and_metrics_with_sendfile():
    with Server(conf=CONF, backend="sendfile") as s:
        s.put("f", b"x" * 1000)
        before = status(s.port)
        for _ in range(5):
            check(get(s.port, "/f").status == 200, "file")
        check(get(s.port, "/missing").status == 404, "404")
        check(get(s.port, "/x", headers={"Host": "other.test"}).status
              == 404, "other server")
        after = status(s.port)
        check(after["send_backend"] == "sendfile" and "backend" not in after,
              repr(after))
        check(after["requests"] - before["requests"] == 8,
              "requests %d -> %d" % (before["requests"], after["requests"]))
        check(after["responses"]["2xx"] - before["responses"]["2xx"] == 6,
              "2xx: %r -> %r" % (before["responses"], after["responses"]))
        check(after["responses"]["4xx"] - before["responses"]["4xx"] == 2,
              "4xx")
        check(after["body_bytes"] - before["body_bytes"] >= 5000, "bytes")
        names = [sv["name"] for sv in after["servers"]]
        check(names == ["_0", "other.test"], repr(names))
        other = after["servers"][1]
        check(other["requests"] == 1 and other["responses"]["4xx"] == 1,
              repr(other))
        m = get(s.port, "/metrics")
        check(m.status == 200 and m.header("Content-Type")
              == "text/plain; version=0.0.4", repr(m))
        text = m.body.decode()
        for want in (r'^nicd_requests_total \d+$',
                     r'^nicd_responses_total\{class="2xx"\} \d+$',
                     r'^nicd_server_requests_total\{server="other.test"\} 1$',
                     r'^# TYPE nicd_connections gauge$',
                     r'^nicd_connections\{state="active"\} [1-9]\d*$'):
            check(re.search(want, text, re.M), "%s not in\n%s" % (want, text))
        check("nicd_nic_" not in text, "no nic counters without nic")


def test_nic_counters_join_with_the_nic_backend():
    with Server(conf=CONF, backend="nic") as s:
        s.put("f", b"y" * 20000)
        check(get(s.port, "/f").status == 200, "file")
        st = status(s.port)
        check(st["send_backend"] == "nic" and "total" in st["backend"],
              repr(st)[:300])
        text = get(s.port, "/metrics").body.decode()
        check(re.search(r"^nicd_requests_total \d+$", text, re.M)
              and re.search(r"^nicd_nic_hits_total", text, re.M), text[-800:])
