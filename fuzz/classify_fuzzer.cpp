// Any bytes as a job's log, with any ending: the classifier must return a verdict
// (never crash, hang or grow without bound), and the verdict must name a class.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpualert/classifier/classifier.hpp"

using namespace gpualert::classify;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Classifier c = Classifier::with_builtin_rules();
  RunStatus st;
  if (size > 0) {  // the first byte picks the ending: an exit code, a signal, or unknown
    const int b = data[0];
    if (b < 128) st.exit_code = b % 8;
    else if (b < 250) st.exit_code = -(b % 32);
    ++data;
    --size;
  }
  const Verdict v = c.classify_text(std::string_view(reinterpret_cast<const char*>(data), size), st);
  if (v.cls.empty()) std::abort();
  return 0;
}
