#pragma once
// --artifact GLOB: files under the working directory only, never through a
// symlink that leads out of it.
#include <filesystem>
#include <string>
#include <vector>

#include "gpualert/notifier/message.hpp"

namespace gpualert::cli {

struct ArtifactSelection {
  std::vector<notify::FileCandidate> files;
  std::vector<notify::OmittedFile> refused;  // named in the message with the reason
  std::vector<std::string> problems;         // e.g. "pattern 'x' matched nothing"
};

ArtifactSelection select_artifacts(const std::vector<std::string>& globs, const std::filesystem::path& cwd);

}  // namespace gpualert::cli
