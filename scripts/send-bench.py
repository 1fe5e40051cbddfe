#!/usr/bin/env python3
"""The `pushseal send` figure: notifications per second sealed and sent over one HTTP/2
connection to the local APNs emulator, next to a reference client measured in the same run
(Python httpx over HTTP/2, same concurrency, payloads sealed by PushSeal beforehand, so the
reference only sends), and the peak RSS of `pushseal send` (one process: `pushseal` runs its
companion `pushseal-full` in its place, which seals and delivers).

    scripts/send-bench.py                         # 100,000 lines, reference 10,000
    scripts/send-bench.py --lines 1000000         # the PERFORMANCE.md figure (minutes)
    scripts/send-bench.py --lines 20000 --check   # bounded, for CI: fails on > 64 MiB or a lost line

Targets (Docs/PERFORMANCE.md): rate >= 3x the reference's; peak RSS <= 64 MiB,
whatever the input length. Both clients share the emulator, which runs on the same cores: on
a small machine the emulator, not the client, can be what limits both rates.
"""
import argparse
import asyncio
import base64
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPIC = "com.example.bench"


def ensure_httpx():
    try:
        import httpx  # noqa: F401
        import h2  # noqa: F401
        return
    except ImportError:
        pass
    print("send-bench: installing httpx[http2] (the reference client)", file=sys.stderr)
    for extra in ([], ["--break-system-packages"]):
        if subprocess.call([sys.executable, "-m", "pip", "install", "--quiet", *extra, "httpx[http2]"],
                           stderr=subprocess.DEVNULL) == 0:
            return
    sys.exit("send-bench: error: cannot install httpx[http2]")


def start_emulator(directory):
    log = open(os.path.join(directory, "emulator.log"), "w")
    process = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/Emulator/push-emulator.py"), "--dir", directory, "--quiet"],
                               stderr=log)
    for _ in range(150):
        if os.path.exists(os.path.join(directory, "ready")):
            return process
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    sys.exit("send-bench: error: the emulator did not start:\n" + open(os.path.join(directory, "emulator.log")).read())


def content_line(index):
    return ('{"token":"%064x","content":{"cid":"c%d","mid":"m%d","ts":1700000000,'
            '"title":"Alice","body":"Are we still on for lunch tomorrow at noon? Message %d."}}\n' % (index, index % 100, index, index))


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def run_pushseal(pushseal, emulator_dir, key, lines, concurrency):
    url = open(os.path.join(emulator_dir, "url")).read()
    command = [pushseal, "send", "--key", key, "--apns-key-file", os.path.join(emulator_dir, "apns-key.p8"),
               "--apns-key-id", "EMUKEY1234", "--apns-team-id", "EMUTEAM123", "--apns-topic", TOPIC,
               "--apns-url", url, "--ca-file", os.path.join(emulator_dir, "ca.pem"), "--max-in-flight", str(concurrency)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=1 << 16)
    peaks = {"pushseal": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            value = rss_kib(process.pid)
            if value:
                peaks["pushseal"] = max(peaks["pushseal"], value)
            time.sleep(0.05)

    def feed():
        chunk = []
        for index in range(lines):
            chunk.append(content_line(index))
            if len(chunk) == 512:
                process.stdin.write("".join(chunk).encode())
                chunk = []
        process.stdin.write("".join(chunk).encode())
        process.stdin.close()

    errors = []
    threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True).start()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    delivered = 0
    outcomes = {}
    for line in process.stdout:
        if b'"outcome":"delivered"' in line:
            delivered += 1
        else:
            outcome = json.loads(line)["outcome"]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    process.wait()
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    done.set()
    sampler.join()
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"lines": lines, "delivered": delivered, "other": outcomes, "seconds": elapsed, "rate": lines / elapsed,
            "cpu_us_per_notification": cpu / lines * 1e6,
            "peak_rss_kib": peaks, "status": process.returncode, "stderr": b"".join(errors).decode(errors="replace")[-2000:]}


def provider_token(emulator_dir):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    key = serialization.load_pem_private_key(open(os.path.join(emulator_dir, "apns-key.p8"), "rb").read(), None)
    b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=")
    signing_input = b64(b'{"alg":"ES256","kid":"EMUKEY1234"}') + b"." + b64(json.dumps({"iss": "EMUTEAM123", "iat": int(time.time())}).encode())
    r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return (signing_input + b"." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))).decode()


def run_reference(pushseal, emulator_dir, key, lines, concurrency):
    import httpx
    sealed = subprocess.run([pushseal, "seal", "--key", key, "--apns-topic", TOPIC, "--with-headers", "--batch"],
                            input="".join(json.dumps(json.loads(content_line(i))["content"]) + "\n" for i in range(min(lines, 2000))).encode(),
                            capture_output=True, check=True).stdout.splitlines()
    requests = []
    for line in sealed:
        text = line.decode()
        headers = json.loads(text)["headers"]
        body = text[text.index('"payload":') + len('"payload":'):-1].encode()
        requests.append((headers, body))
    url = open(os.path.join(emulator_dir, "url")).read()
    token = provider_token(emulator_dir)

    async def main():
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(http2=True, verify=os.path.join(emulator_dir, "ca.pem"), limits=limits, timeout=30) as client:
            counter = iter(range(lines))
            delivered = 0

            async def worker():
                nonlocal delivered
                for index in counter:
                    headers, body = requests[index % len(requests)]
                    response = await client.post(f"{url}/3/device/{index:064x}", content=body,
                                                 headers={**headers, "authorization": f"bearer {token}"})
                    delivered += response.status_code == 200
            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return delivered, time.perf_counter() - started

    before = resource.getrusage(resource.RUSAGE_SELF)
    delivered, elapsed = asyncio.run(main())
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"lines": lines, "delivered": delivered, "seconds": elapsed, "rate": lines / elapsed,
            "cpu_us_per_notification": cpu / lines * 1e6}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.path.join(ROOT, ".build/release/pushseal")
    if not os.path.exists(default):
        default = os.path.join(ROOT, ".build/debug/pushseal")
    parser.add_argument("--pushseal", default=default)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--reference-lines", type=int, default=None, help="default: a tenth of --lines, at least 2,000")
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--check", action="store_true", help="exit 1 when a line is not delivered or a peak RSS exceeds 64 MiB")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ensure_httpx()
    directory = tempfile.mkdtemp(prefix="pushseal-send-bench.")
    emulator = start_emulator(directory)
    try:
        key = json.loads(subprocess.run([args.pushseal, "keygen"], capture_output=True, check=True).stdout)["key"]
        ours = run_pushseal(args.pushseal, directory, key, args.lines, args.concurrency)
        reference_lines = args.reference_lines or max(2_000, args.lines // 10)
        reference = run_reference(args.pushseal, directory, key, reference_lines, args.concurrency)
    finally:
        emulator.terminate()
        emulator.wait()
        shutil.rmtree(directory, ignore_errors=True)
    ratio = ours["rate"] / reference["rate"]
    peak = max(ours["peak_rss_kib"].values()) / 1024
    result = {"figure": "send.apns", "executable": args.pushseal, "concurrency": args.concurrency, "pushseal": ours,
              "reference": reference, "ratio": ratio, "ratio_target": 3.0, "peak_rss_mib": peak, "rss_target_mib": 64}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"send.apns  {args.concurrency} streams on one connection, {os.path.basename(os.path.dirname(os.path.dirname(args.pushseal)))}/{os.path.basename(os.path.dirname(args.pushseal))} build")
        print(f"  pushseal send      {ours['lines']:>9,} lines  {ours['rate']:>9,.0f}/s  {ours['cpu_us_per_notification']:>6.0f} µs CPU each  (sealed and sent; {ours['delivered']:,} delivered)")
        print(f"  httpx (reference)  {reference['lines']:>9,} lines  {reference['rate']:>9,.0f}/s  {reference['cpu_us_per_notification']:>6.0f} µs CPU each  (sent only; {reference['delivered']:,} delivered)")
        print(f"  ratio              {ratio:.2f}x  (target >= 3x: {'met' if ratio >= 3 else 'NOT met'})")
        print(f"  peak RSS           pushseal send {ours['peak_rss_kib']['pushseal'] / 1024:.1f} MiB  (target <= 64 MiB: {'met' if peak <= 64 else 'NOT met'})")
    failed = ours["delivered"] != ours["lines"] or ours["status"] != 0 or reference["delivered"] != reference["lines"]
    if failed:
        print(f"send-bench: error: not every line was delivered ({ours['other']}, exit {ours['status']})\n{ours['stderr']}", file=sys.stderr)
    if args.check and (failed or peak > 64):
        sys.exit(1)


if __name__ == "__main__":
    main()
