// Any bytes as `sacct --json` output, and as a SystemComment: the reader either
// yields jobs or throws std::runtime_error, never anything else; every accounting
// token it trusts formats back to a token it trusts; merging ours keeps the rest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "gpualert/fleet/accounting_tag.hpp"
#include "gpualert/fleet/sacct_json.hpp"

using namespace gpualert::fleet;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    read_sacct_json(text, [](JobRecord&& j) {
      if (j.verdict && !parse_tag(format_tag(*j.verdict))) std::abort();
    });
  } catch (const std::runtime_error&) {
    // Not sacct's JSON: said so, which the command reports.
  }
  if (const auto v = parse_tag(text)) {
    const std::string tag = format_tag(*v);
    if (tag.size() > kMaxTokenBytes || !parse_tag(tag)) std::abort();
    const std::string merged = merge_tag(text, tag);
    const auto back = parse_tag(merged);
    if (!back || back->cls != v->cls) std::abort();
  }
  return 0;
}
