#pragma once
// A notification as data: envelope, headers, text body, files to attach.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpualert::notify {

struct Envelope {
  std::string from;              // bare address, e.g. "alice@gpu041"
  std::vector<std::string> to;   // bare addresses
};

// A file that should travel with the message if the budget allows.
struct FileCandidate {
  std::filesystem::path path;   // absolute
  std::string attach_name;      // file name shown to the reader, e.g. "output.log"
  std::string content_type = "text/plain; charset=utf-8";
};

struct PlannedFile {
  FileCandidate file;              // as given; a compressed file keeps its attach_name and content_type here
  std::uint64_t raw_size = 0;      // bytes that will be read (a snapshot: later growth is ignored); gzip size if compressed
  std::uint64_t encoded_size = 0;  // bytes in the message after base64
  bool compressed = false;         // attached as gzip (name gets ".gz", type application/gzip)
  std::filesystem::path source;    // file read when writing: file.path, or the staged .gz when compressed
  std::uint64_t original_size = 0; // snapshot size of file.path (equals raw_size unless compressed)
  // Owns the staged .gz: it is deleted when the last copy of this plan goes away.
  std::shared_ptr<const std::filesystem::path> staged;

  // The name the reader sees: attach_name, plus ".gz" when compressed.
  std::string shown_name() const { return compressed ? file.attach_name + ".gz" : file.attach_name; }
};

// A file that did not fit or could not be read; always named in the body.
struct OmittedFile {
  std::filesystem::path path;
  std::uint64_t size = 0;
  std::string reason;  // e.g. "over the 20.0 MiB attachment budget", "unreadable: Permission denied"
};

struct AttachmentPlan {
  std::uint64_t budget = 0;  // encoded bytes allowed for all attachments together
  std::uint64_t used = 0;    // encoded bytes the attached files take
  std::vector<PlannedFile> attached;
  std::vector<OmittedFile> omitted;
};

// A part the HTML body shows in place (an image), named by its Content-ID.
struct InlinePart {
  std::string cid;           // referenced as "cid:<cid>" in body_html; [A-Za-z0-9.@_-] only
  std::string content_type;  // e.g. "image/png"
  std::string name;          // file name, for clients that list it
  std::string data;          // the bytes (small: a chart, not a log)
};

struct Message {
  Envelope envelope;
  std::string subject;    // untrusted text allowed: it is sanitised and RFC 2047-encoded
  std::string body_text;  // UTF-8; sent quoted-printable
  // When not empty, an HTML rendering of the same message: the text and the HTML go as
  // multipart/alternative, with INLINE_PARTS beside the HTML in a multipart/related.
  std::string body_html;
  std::vector<InlinePart> inline_parts;
  // A post to a chat or webhook channel instead of a mail: CHANNEL is its destination
  // ("slack:team-ml"), PAYLOAD the JSON body posted. The outbox keeps the payload as the
  // message's file; the sender looks the channel's URL up in the channels file.
  std::string channel;
  std::string payload;
  AttachmentPlan attachments;
  std::vector<std::pair<std::string, std::string>> extra_headers;  // e.g. {"X-Gpualert-Class", "cuda_oom"}
  // Facts kept in the outbox's record only (never sent): what a digest lists of this
  // message ("job", "task", "array", "class", "attribution", "status", "exit", "elapsed",
  // "node", "label", "evidence").
  std::map<std::string, std::string> record;
};

}  // namespace gpualert::notify
