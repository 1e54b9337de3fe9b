#include "artifacts.hpp"

#include <glob.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <set>

namespace gpualert::cli {
namespace fs = std::filesystem;

namespace {
constexpr std::size_t kMaxPerPattern = 200;  // a pattern like '**' must not flood the message
}

ArtifactSelection select_artifacts(const std::vector<std::string>& globs, const fs::path& cwd) {
  ArtifactSelection out;
  char real_cwd[PATH_MAX];
  if (!::realpath(cwd.c_str(), real_cwd)) return out;
  const std::string root = std::string(real_cwd) + "/";
  std::set<std::string> seen;
  for (const auto& pattern : globs) {
    if (!pattern.empty() && pattern[0] == '/') {
      out.problems.push_back("artifact pattern '" + pattern + "' is absolute; patterns are relative to " + real_cwd);
      continue;
    }
    glob_t g{};
    const std::string full = root + pattern;
    const int rc = ::glob(full.c_str(), 0, nullptr, &g);
    if (rc == GLOB_NOMATCH || g.gl_pathc == 0) {
      out.problems.push_back("artifact pattern '" + pattern + "' matched nothing");
      ::globfree(&g);
      continue;
    }
    for (std::size_t i = 0; i < g.gl_pathc; ++i) {
      const std::string path = g.gl_pathv[i];
      if (i >= kMaxPerPattern) {
        out.refused.push_back({path, 0, "more than " + std::to_string(kMaxPerPattern) + " files match '" + pattern + "'"});
        continue;
      }
      char real[PATH_MAX];
      struct stat st {};
      if (!::realpath(path.c_str(), real) || ::stat(real, &st) != 0) {
        out.refused.push_back({path, 0, "cannot be resolved (dangling link?)"});
        continue;
      }
      if (std::string(real).rfind(root, 0) != 0) {
        out.refused.push_back({path, static_cast<std::uint64_t>(st.st_size), "leads outside the working directory"});
        continue;
      }
      if (!S_ISREG(st.st_mode)) continue;  // directories matched by a glob are not artifacts
      if (!seen.insert(real).second) continue;
      out.files.push_back({real, fs::path(real).filename().string(), "application/octet-stream"});
    }
    ::globfree(&g);
  }
  return out;
}

}  // namespace gpualert::cli
