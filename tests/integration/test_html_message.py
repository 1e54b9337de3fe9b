"""The HTML message as a person meets it: received by a real SMTP server, parsed by Python's
email package, and rendered by headless Chromium at a phone's and a desktop's width, with the
loss curve drawn for a run whose loss went NaN and for one that diverged."""
import base64
import html as html_lib
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

from harness import GpualertCase, SmtpServer

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Where the screenshots are kept for a person to look at (else they go with the test's tmp dir).
SHOTS = os.environ.get("GPUALERT_SCREENSHOT_DIR")

NAN_RUN = r"""
import math, sys
for step in range(1, 301):
    loss = 3.0 * math.exp(-step / 80) + 0.3 + (0.05 if step % 7 == 0 else 0)
    if step > 240:
        loss = float('nan')
    print(f"step {step}/1000 | loss {loss:.4f} | lr 3e-4", flush=True)
    if step > 250:
        break
print("a batch said <img src=x onerror=alert(1)> & more", flush=True)
print("Traceback (most recent call last):", file=sys.stderr)
print('  File "train.py", line 9, in <module>', file=sys.stderr)
print("RuntimeError: loss is nan, stopping training", file=sys.stderr)
sys.exit(1)
"""

DIVERGING_RUN = r"""
import math
for step in range(1, 201):
    loss = 2.5 * math.exp(-step / 25) + 0.4 if step <= 100 else 0.42 * math.exp((step - 100) / 18)
    print(f"step {step}/200 | loss {loss:.4f}", flush=True)
print("Training complete.")
"""

BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--hide-scrollbars", "--virtual-time-budget=3000"]

# A window holds the message in a frame of the device's size (a headless window is at least
# 500 px wide, a phone is 375): the frame is the message's viewport. When it has loaded, the
# probe measures where the verdict block ends and whether anything is wider than the frame.
FRAME = """<!DOCTYPE html><html><body style="margin:0;background:#888;">
<iframe id="m" width="%d" height="%d" style="border:0;display:block;background:#fff;" srcdoc="%s"></iframe>
<script>
document.getElementById('m').addEventListener('load', function () {
  var d = this.contentDocument, w = this.contentWindow;
  var r = d.getElementById('verdict').getBoundingClientRect();
  var img = d.querySelector('img');
  document.body.setAttribute('data-probe', JSON.stringify({
    width: w.innerWidth, height: w.innerHeight, verdict_bottom: r.bottom,
    scroll_width: d.documentElement.scrollWidth,
    img_width: img ? img.getBoundingClientRect().width : null}));
});
</script></body></html>"""


def png_size(data):
    """(width, height) from a PNG's IHDR chunk; fails on anything that is not a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


class HtmlMessage(GpualertCase):
    def mail_for(self, code, exit_expected):
        script = os.path.join(self.tmp, "train.py")
        with open(script, "w") as f:
            f.write(code)
        with SmtpServer(self.tmp) as srv:
            r = self.gpualert(["--smtp", srv.url, "--to", "alice@example.org"], ["/usr/bin/python3", script])
            msgs = srv.messages()
        self.assertEqual(r.returncode, exit_expected)
        self.assertEqual(len(msgs), 1)
        return msgs[0]

    def structure(self, m):
        """The MIME tree as nested content types."""
        def walk(p):
            if p.is_multipart():
                return [p.get_content_type(), [walk(c) for c in p.iter_parts()]]
            return p.get_content_type()
        return walk(m)

    def html_and_chart(self, m):
        html = m.get_body(preferencelist=("html",))
        self.assertIsNotNone(html, "an HTML part")
        images = [p for p in m.walk() if p.get_content_type() == "image/png"]
        return html.get_content(), images

    def render(self, html, chart, name, width, height):
        """The HTML as a mail client shows it (the cid: picture in place) in Chromium at WIDTH x HEIGHT:
        the probe's measurements, and a screenshot."""
        if chart is not None:
            cid = chart["Content-ID"].strip("<>")
            uri = "data:image/png;base64," + base64.b64encode(chart.get_payload(decode=True)).decode()
            html = html.replace("cid:" + cid, uri)
        outdir = SHOTS or self.tmp
        os.makedirs(outdir, exist_ok=True)
        page = os.path.join(self.tmp, "%s-%d.html" % (name, width))
        with open(page, "w") as f:
            f.write(FRAME % (width, height, html_lib.escape(html, quote=True)))
        profile = tempfile.mkdtemp(prefix="chromium-", dir=self.tmp)
        base = [CHROMIUM] + BROWSER_FLAGS + ["--user-data-dir=" + profile,
                                             "--window-size=%d,%d" % (max(width, 500), height)]
        dom = subprocess.run(base + ["--dump-dom", "file://" + page], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=180)
        self.assertEqual(dom.returncode, 0, dom.stderr.decode(errors="replace")[-2000:])
        found = re.search(r'data-probe="([^"]*)"', dom.stdout.decode())
        self.assertIsNotNone(found, "the probe ran in the page")
        probe = json.loads(html_lib.unescape(found.group(1)))
        shot = os.path.join(outdir, "%s-%d.png" % (name, width))
        subprocess.run(base + ["--screenshot=" + shot, "file://" + page], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=180, check=True)
        with open(shot, "rb") as f:
            self.assertEqual(png_size(f.read()), (max(width, 500), height))
        shutil.rmtree(profile, ignore_errors=True)
        return probe

    def assert_first_screen(self, html, chart, name):
        for width, height in ((375, 667), (1280, 800)):
            p = self.render(html, chart, name, width, height)
            self.assertEqual(p["width"], width, p)
            self.assertLessEqual(p["verdict_bottom"], p["height"],
                                 "what happened, whose move and what to do fit the first screen at %d px: %s" % (width, p))
            self.assertLessEqual(p["scroll_width"], width, "nothing is wider than the window at %d px: %s" % (width, p))
            if chart is not None:
                self.assertLessEqual(p["img_width"], width, p)

    def test_nan_run_html_with_loss_curve(self):
        m = self.mail_for(NAN_RUN, 1)
        self.assertEqual(m["X-Gpualert-Class"], "nan_loss")
        self.assertEqual(m["X-Gpualert-Attribution"], "job")
        self.assertEqual(self.structure(m),
                         ["multipart/mixed", [
                             ["multipart/alternative", ["text/plain",
                                                        ["multipart/related", ["text/html", "image/png"]]]],
                             "text/plain"]])
        self.assertEqual(m.defects, [])
        html, images = self.html_and_chart(m)
        self.assertEqual(len(images), 1)
        chart = images[0]
        self.assertEqual(chart.get_content_disposition(), "inline")
        self.assertEqual(png_size(chart.get_payload(decode=True)), (600, 200))
        cid = chart["Content-ID"].strip("<>")
        self.assertIn('src="cid:%s"' % cid, html)
        # The picture says what it shows when images are off.
        self.assertRegex(html, r'alt="Training loss over the run: [^"]*first non-finite loss at step 241')
        # The job's text is escaped; nothing is loaded from elsewhere; styles are inline only.
        self.assertIn("&lt;img src=x onerror=alert(1)&gt; &amp; more", html)
        self.assertNotIn("<img src=x", html)
        self.assertNotRegex(html, r"(?i)<script|<link|<style|src=\"https?:|url\(")
        # First the class, whose move, what to do, then the three parts and the log's tail.
        order = [html.find(s) for s in ("nan_loss", "Your job", "What to do:", "What the data shows",
                                        "What it implies", "What it cannot decide", "Run</h2>", "Attachments",
                                        "lines of the log")]
        self.assertNotIn(-1, order, order)
        self.assertEqual(order, sorted(order))
        # The plain text keeps everything, the curve as one line.
        text = m.get_body(preferencelist=("plain",)).get_content()
        self.assertRegex(text, r"loss [▁▂▃▄▅▆▇█]{8,} 3\.\d+ \(step 1\) → 0\.\d+ \(step 240\); not finite from step 241")
        self.assert_first_screen(html, chart, "nan-run")

    def test_diverging_run_marks_the_low(self):
        m = self.mail_for(DIVERGING_RUN, 0)
        self.assertEqual(m["X-Gpualert-Class"], "divergence")
        html, images = self.html_and_chart(m)
        self.assertEqual(len(images), 1)
        self.assertEqual(png_size(images[0].get_payload(decode=True)), (600, 200))
        # The low of the run (step 101, 0.444) is the marked point; the axis is logarithmic past 1000x.
        self.assertRegex(html, r'alt="[^"]*marked: lowest loss, then rising at step 101')
        text = m.get_body(preferencelist=("plain",)).get_content()
        self.assertRegex(text, r"loss [▁▂▃▄▅▆▇█]{8,} 2\.\d+ \(step 1\) → \d+\.\d+ \(step 200\)")
        self.assert_first_screen(html, images[0], "diverging-run")

    def test_no_loss_no_picture_and_html_can_be_turned_off(self):
        code = "import sys\nprint('Traceback (most recent call last):', file=sys.stderr)\nraise ZeroDivisionError('x')\n"
        m = self.mail_for(code, 1)
        html, images = self.html_and_chart(m)
        self.assertEqual(images, [])
        self.assertNotIn("<img", html)
        self.assertIn("div_zero", html)
        self.assert_first_screen(html, None, "no-loss-run")
        self.env["GPUALERT_HTML"] = "no"
        m = self.mail_for(code, 1)
        self.assertIsNone(m.get_body(preferencelist=("html",)))
        self.assertEqual(self.structure(m), ["multipart/mixed", ["text/plain", "text/plain"]])


if __name__ == "__main__":
    unittest.main()
