#pragma once
// The two reference classifiers of the GPUAlert paper, in our own reading:
//  - exit-code inspection: the exit status alone decides;
//  - unordered keyword matching: every class has keywords, the class with the most
//    keyword occurrences in the log wins (ties: alphabetical), no ordering, no context.
#include <optional>
#include <string>
#include <string_view>

namespace gpualert::bench {

std::string exit_code_baseline(std::optional<int> exit_code);
std::string keyword_baseline(std::string_view log);

}  // namespace gpualert::bench
