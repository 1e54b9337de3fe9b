#pragma once
// The class ids of shared/taxonomy.md with their family and attribution.
#include <string_view>
#include <vector>

namespace gpualert::classify {

struct ClassInfo {
  std::string_view id;
  std::string_view family;
  std::string_view attribution;
  std::string_view meaning;  // one line, our own wording
};

// nullptr for an id that is not in the taxonomy.
const ClassInfo* find_class(std::string_view id);
const std::vector<ClassInfo>& all_classes();

}  // namespace gpualert::classify
