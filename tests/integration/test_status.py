"""Status and metrics with any send backend: nginx's stub_status format,
and JSON and Prometheus text with connections, requests, body bytes,
responses by status class and per server; the nic backend's counters
join them when it is the backend."""

import json
import re

from nicd import Server, check, get

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
