// Decides which files travel with the message. Every candidate ends up in
// exactly one of plan.attached / plan.omitted: nothing is dropped silently.
#include "gpualert/notifier/attachment_budget.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "gpualert/common/text.hpp"
#include "gzip_file.hpp"
#include "gpualert/common/unique_fd.hpp"

namespace gpualert::notify {
namespace {

constexpr std::uint64_t kLine = 78;    // 76 characters + CRLF
constexpr std::uint64_t kRawLine = 57;  // raw bytes per full line

struct Snapshot {
  UniqueFd fd;
  std::uint64_t size = 0;
  std::string error;  // set when the file cannot be attached at all
};

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "directory";
  if (S_ISLNK(m)) return "symbolic link";
  if (S_ISFIFO(m)) return "FIFO";
  if (S_ISSOCK(m)) return "socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "device";
  return "special file";
}

// lstat first: a symlink is not followed (it could point anywhere, e.g. at a
// secret); O_NONBLOCK so a FIFO swapped in after the lstat cannot block open().
Snapshot take_snapshot(const std::filesystem::path& path) {
  Snapshot s;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    s.error = std::string(errno == ENOENT ? "missing: " : "unreadable: ") + std::strerror(errno);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    s.error = std::string("not a regular file (") + kind_of(st.st_mode) + ")";
    return s;
  }
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!s.fd.valid()) {
    s.error = std::string("unreadable: ") + std::strerror(errno);
    return s;
  }
  struct stat fst {};
  if (::fstat(s.fd.get(), &fst) != 0 || !S_ISREG(fst.st_mode) || fst.st_ino != st.st_ino ||
      fst.st_dev != st.st_dev) {
    s.error = "unreadable: replaced while being checked";
    s.fd.reset();
    return s;
  }
  // The size of the opened file is the snapshot; growth after this is ignored.
  s.size = static_cast<std::uint64_t>(fst.st_size);
  return s;
}

// Largest raw size whose encoding takes at most ENCODED bytes.
std::uint64_t raw_fitting(std::uint64_t encoded) {
  std::uint64_t raw = encoded / kLine * kRawLine;
  const std::uint64_t rest = encoded % kLine;
  if (rest > 2) raw += (rest - 2) / 4 * 3;
  return raw;
}

std::filesystem::path default_staging() {
  const char* t = std::getenv("TMPDIR");
  return (t != nullptr && *t == '/') ? std::filesystem::path(t) : std::filesystem::path("/tmp");
}

std::string over_budget_reason(std::uint64_t budget, std::uint64_t used, std::uint64_t size,
                               const std::string& gzip_note) {
  std::string r;
  if (base64_encoded_size(size) > budget || used == 0) {
    r = "over the " + human_size(budget) + " attachment budget (" + human_size(size);
  } else {
    r = "does not fit in the " + human_size(budget - used) + " left of the " + human_size(budget) +
        " attachment budget (" + human_size(size);
  }
  return r + gzip_note + ")";
}

}  // namespace

std::uint64_t base64_encoded_size(std::uint64_t raw) {
  const std::uint64_t chars = (raw + 2) / 3 * 4;
  const std::uint64_t lines = (chars + 75) / 76;
  return chars + 2 * lines;
}

AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes) {
  return plan_attachments(candidates, budget_bytes, default_staging());
}

AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes,
                                std::chrono::steady_clock::time_point give_up) {
  return plan_attachments(candidates, budget_bytes, default_staging(), give_up);
}

AttachmentPlan plan_attachments(const std::vector<FileCandidate>& candidates, std::uint64_t budget_bytes,
                                const std::filesystem::path& staging_dir, std::chrono::steady_clock::time_point give_up) {
  AttachmentPlan plan;
  plan.budget = budget_bytes;
  for (const FileCandidate& c : candidates) {
    Snapshot snap = take_snapshot(c.path);
    if (!snap.error.empty()) {
      plan.omitted.push_back({c.path, snap.size, snap.error});
      continue;
    }
    const std::uint64_t left = plan.budget - plan.used;
    const std::uint64_t encoded = base64_encoded_size(snap.size);
    if (encoded <= left) {
      plan.attached.push_back({c, snap.size, encoded, false, c.path, snap.size, nullptr});
      plan.used += encoded;
      continue;
    }
    // Greedy in priority order; a later, smaller file may still fit after this.
    std::string gzip_note = ", also when gzipped";
    if (left > 0) {
      const GzipResult gz = gzip_snapshot(snap.fd.get(), snap.size, staging_dir, raw_fitting(left), give_up);
      if (gz.ok) {
        PlannedFile pf{c, gz.size, base64_encoded_size(gz.size), true, gz.path, snap.size, nullptr};
        const int staged_fd = gz.fd;  // an unnamed copy: closing it is deleting it
        pf.staged.reset(new std::filesystem::path(gz.path), [staged_fd](const std::filesystem::path* p) {
          if (staged_fd >= 0) ::close(staged_fd);
          else ::unlink(p->c_str());
          delete p;
        });
        plan.attached.push_back(std::move(pf));
        plan.used += base64_encoded_size(gz.size);
        continue;
      }
      if (!gz.too_large) gzip_note = "; gzip failed: " + gz.error;
    }
    plan.omitted.push_back({c.path, snap.size, over_budget_reason(plan.budget, plan.used, snap.size, gzip_note)});
  }
  return plan;
}

}  // namespace gpualert::notify
