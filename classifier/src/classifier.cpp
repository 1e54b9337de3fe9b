// The public API: load rules once, then classify any number of logs.
#include "gpualert/classifier/classifier.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "decision.hpp"
#include "line_reader.hpp"
#include "log_scanner.hpp"
#include "rule_set.hpp"
#include "rule_set_handle.hpp"

namespace gpualert::classify {

namespace {

std::vector<detail::RuleSource> read_files(const std::vector<std::filesystem::path>& files) {
  std::vector<detail::RuleSource> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw RuleError("rule file " + f.string() + ": cannot be read");
    std::ostringstream ss;
    ss << in.rdbuf();
    out.push_back({f.string(), ss.str()});
  }
  return out;
}

std::shared_ptr<const RuleSet> build(const std::vector<detail::RuleSource>& sources) {
  return std::make_shared<const RuleSet>(detail::compile_rules(sources));
}

// Below this size a log is read line by line faster than the fast matcher's database
// compiles (when no cached one exists): only a bigger log, or a stream, builds it.
constexpr std::uint64_t kBuildMatcherBytes = 4u << 20;

struct Run {
  Run(const detail::RuleSet& rules, bool reference, bool build_matcher)
      : scanner(rules, detail::ScanOptions{reference, build_matcher}),
        splitter([this](std::string_view l, std::uint64_t n) { return scanner.block(l, n); }) {}
  detail::LogScanner scanner;
  detail::LineSplitter splitter;
};

Verdict finish(const detail::RuleSet& rules, Run& run, std::uint64_t bytes, const detail::ReadStats* st,
               const RunStatus& status, bool calibrate) {
  auto& res = run.scanner.result();
  res.bytes = bytes;
  res.long_lines = run.splitter.long_lines() + run.scanner.long_lines();
  if (st) {
    res.partial = st->partial;
    res.skipped_bytes = st->skipped_bytes;
    res.gap = st->gap;
  }
  Verdict v = detail::decide(rules, res, status);
  v.loss_curve = {res.loss.key(), res.loss.overview(), res.loss.count()};
  // "unknown" says how little is known; its raw confidence is the honest one.
  if (calibrate && v.cls != "unknown") v.confidence = rules.calibrate(v.confidence, v.cls);
  return v;
}

}  // namespace

Classifier::Classifier(std::shared_ptr<const RuleSet> rules) : rules_(std::move(rules)) {}
Classifier::Classifier(Classifier&&) noexcept = default;
Classifier& Classifier::operator=(Classifier&&) noexcept = default;
Classifier::~Classifier() = default;

Classifier Classifier::with_builtin_rules(const std::vector<std::filesystem::path>& extra) {
  auto sources = detail::builtin_rule_sources();
  for (auto& s : read_files(extra)) sources.push_back(std::move(s));
  return Classifier(build(sources));
}

Classifier Classifier::with_builtin_rules_or_alone(const std::vector<std::filesystem::path>& extra,
                                                    std::string& note) {
  if (!extra.empty()) {
    try {
      return with_builtin_rules(extra);
    } catch (const std::exception& e) {
      note = std::string("site rules ignored (the built-in rules were used): ") + e.what();
    }
  }
  return with_builtin_rules();
}

Classifier Classifier::from_files(const std::vector<std::filesystem::path>& files) {
  return Classifier(build(read_files(files)));
}

std::string Classifier::remedy_for(std::string_view cls) const {
  const auto* t = rules_->impl->text_for(cls);
  return t ? detail::fill_template(t->remedy, {}) : std::string();  // without a job's facts: the general advice
}

std::size_t Classifier::rule_count() const { return rules_->impl->rules.size(); }

double Classifier::calibrated(double raw, std::string_view cls) const { return rules_->impl->calibrate(raw, cls); }

const std::vector<std::string>& Classifier::engine_notes() const { return rules_->impl->engine_notes; }

bool Classifier::build_fast_matcher() const { return rules_->impl->fast_matcher(true) != nullptr; }

Verdict Classifier::classify_text(std::string_view text, const RunStatus& status) const {
  Run run(*rules_->impl, reference_, text.size() >= kBuildMatcherBytes);
  run.splitter.feed(text);
  run.splitter.finish();
  return finish(*rules_->impl, run, text.size(), nullptr, status, !raw_confidence_);
}

Verdict Classifier::classify_fd(int fd, const RunStatus& status) const {
  struct stat sb {};
  const bool small_file = ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
                          static_cast<std::uint64_t>(sb.st_size) < kBuildMatcherBytes;
  Run run(*rules_->impl, reference_, !small_file);
  const auto st = detail::read_fd(fd, run.splitter, status.read_deadline);
  return finish(*rules_->impl, run, st.bytes_read, &st, status, !raw_confidence_);
}

Verdict Classifier::classify_file(const std::filesystem::path& log, const RunStatus& status) const {
  const int fd = ::open(log.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + log.string());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  return classify_fd(fd, status);
}

}  // namespace gpualert::classify
