# Build step: turns the JSON rule files into a C++ source with raw string literals,
# so the built-in rules work with nothing installed.
# Usage: cmake -DRULES_DIR=<etc/rules> -DOUT=<file.cpp> -P embed_rules.cmake
file(GLOB files LIST_DIRECTORIES false RELATIVE "${RULES_DIR}" "${RULES_DIR}/*.json")
list(SORT files)
set(delim "gpualert_rules")
set(body "")
foreach(f IN LISTS files)
  file(READ "${RULES_DIR}/${f}" text)
  string(FIND "${text}" ")${delim}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${f} contains the raw-string delimiter )${delim}\"")
  endif()
  string(APPEND body "      {\"builtin:etc/rules/${f}\", R\"${delim}(${text})${delim}\"},\n")
endforeach()
set(content "// Generated from etc/rules/*.json by classifier/cmake/embed_rules.cmake. Do not edit.
#include \"rule_set.hpp\"

namespace gpualert::classify::detail {

const std::vector<RuleSource>& builtin_rule_sources() {
  static const std::vector<RuleSource> k = {
${body}  };
  return k;
}

}  // namespace gpualert::classify::detail
")
# Only touch the output when it changed, so an unchanged rule set does not rebuild.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${content}")
