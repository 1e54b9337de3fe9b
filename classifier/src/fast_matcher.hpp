#pragma once
// Many patterns over large blocks at once (Hyperscan). It only *selects* lines: every
// line it reports is checked again by RE2, which stays the authority on what a rule
// means and extracts its facts. So it may report more than RE2 would, never less:
// patterns Hyperscan cannot take exactly are compiled in its prefilter mode (a
// superset), and the few it cannot take at all are named in rejected().
//
// Compiling takes hundreds of milliseconds; a compiled database is kept in a cache
// file keyed by the patterns' content and the library version, and reused.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct hs_database;
struct hs_scratch;

namespace gpualert::classify::detail {

struct PatternSpec {
  std::string expr;    // Hyperscan syntax (see translate_for_prefilter)
  unsigned id = 0;
  std::string origin;  // the RE2 pattern it stands for: part of the cache key
};

struct PatternProblem {
  unsigned id = 0;
  std::string reason;
};

struct MatchEnd {
  std::uint64_t end = 0;  // offset just past the match, within the scanned block
  unsigned id = 0;
};

class FastMatcher {
 public:
  // The database for exactly PATTERNS from CACHE_DIR, or null when there is none.
  // SALT: anything else the cached database stands for (it joins the key).
  static std::unique_ptr<FastMatcher> load_cached(const std::vector<PatternSpec>& patterns, const std::string& salt,
                                                  const std::string& cache_dir);
  // Compiles PATTERNS and keeps the database in CACHE_DIR (if it is usable; "" = no
  // cache). Never throws for a pattern it cannot take: see prefiltered() and rejected().
  static std::unique_ptr<FastMatcher> build(const std::vector<PatternSpec>& patterns, const std::string& salt,
                                            const std::string& cache_dir);
  ~FastMatcher();
  FastMatcher(const FastMatcher&) = delete;
  FastMatcher& operator=(const FastMatcher&) = delete;

  // Per-scanner working memory (one per thread).
  class Scratch {
   public:
    explicit Scratch(const FastMatcher& m);
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    hs_scratch* get() const { return s_; }

   private:
    hs_scratch* s_ = nullptr;
  };

  // Appends every match end in BLOCK to OUT. False if the engine failed (OUT is then
  // incomplete: the caller must read the block another way).
  bool scan(std::string_view block, Scratch& scratch, std::vector<MatchEnd>& out) const;

  const std::vector<PatternProblem>& prefiltered() const { return prefiltered_; }
  const std::vector<PatternProblem>& rejected() const { return rejected_; }
  bool from_cache() const { return from_cache_; }
  bool empty() const { return db_ == nullptr; }

 private:
  FastMatcher() = default;
  hs_database* db_ = nullptr;
  std::vector<PatternProblem> prefiltered_, rejected_;
  bool from_cache_ = false;
};

// RE2 syntax -> Hyperscan syntax for prefiltering: named groups become plain groups, and
// the line anchors also match at a carriage return (a progress bar's redraws are
// segments of one line, and a CRLF line ends in "\r").
std::string translate_for_prefilter(std::string_view re2_pattern);

// Where compiled databases are kept: $GPUALERT_CACHE_DIR, else $XDG_CACHE_HOME/gpualert,
// else ~/.cache/gpualert, else /var/cache/gpualert for root; "" if none can be used.
std::string default_matcher_cache_dir();

}  // namespace gpualert::classify::detail
