#!/usr/bin/python3
"""Independent check of a message written by gpualert: parses EML with Python's
email package and prints JSON; decoded parts are written to OUTDIR/<n>.

Usage: /usr/bin/python3 parse_mime.py EML OUTDIR
"""
import email
import email.policy
import json
import os
import sys

eml, outdir = sys.argv[1], sys.argv[2]
with open(eml, "rb") as f:
    raw = f.read()
msg = email.message_from_bytes(raw, policy=email.policy.default)
defects = [repr(d) for d in msg.defects]
result = {
    "headers": [[k, str(v)] for k, v in msg.items()],
    "subject": str(msg["subject"]),
    "from": str(msg["from"]),
    "to": str(msg["to"]),
    "date_ok": msg["date"] is not None and msg["date"].datetime is not None,
    "content_type": msg.get_content_type(),
    "parts": [],
}
os.makedirs(outdir, exist_ok=True)
for i, part in enumerate(msg.walk()):
    defects += [repr(d) for d in part.defects]
    if part.is_multipart():
        continue
    payload = part.get_payload(decode=True) or b""
    path = os.path.join(outdir, str(i))
    with open(path, "wb") as f:
        f.write(payload)
    result["parts"].append({
        "content_type": part.get_content_type(),
        "charset": part.get_content_charset(),
        "filename": part.get_filename(),
        "disposition": part.get_content_disposition(),
        "cte": part.get("Content-Transfer-Encoding"),
        "path": path,
        # Line breaks as LF: the message is CRLF on the wire, the text is compared as LF.
        "text": part.get_content().replace("\r\n", "\n") if part.get_content_type() == "text/plain" and
        part.get_content_disposition() != "attachment" else None,
    })
result["defects"] = defects
print(json.dumps(result))
