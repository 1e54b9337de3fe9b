// Any bytes as an outbox record (pending/<id>.json) next to its message, and as a
// spool step record: listing, deferring and giving the message up never crash, and
// a committed message is always listed, whatever its record says.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpualert/notifier/outbox.hpp"
#include "gpualert/spool/step_record.hpp"

namespace fs = std::filesystem;
using namespace gpualert::notify;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const fs::path dir = fs::temp_directory_path() / ("gpualert-fuzz-outbox-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Outbox box(dir);
  std::ofstream(dir / "pending" / "m1.json", std::ios::binary) << text;
  std::ofstream(dir / "pending" / "m1.eml", std::ios::binary) << "Subject: x\r\n\r\nbody\r\n";
  auto pending = box.pending();
  if (pending.size() != 1) std::abort();  // a committed message is never dropped
  box.defer(pending[0], "451 later", 451, std::chrono::system_clock::now());
  pending = box.pending();
  if (pending.size() != 1 || pending[0].last_code != 451) std::abort();
  box.mark_failed(pending[0], "550 no", 550);
  if (!box.pending().empty() || box.failed().size() != 1) std::abort();
  // The same bytes as a step record in the node spool.
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded()) {
    try {
      (void)gpualert::spool::step_from_json(j);
    } catch (const std::exception&) {
      // A malformed record is refused with an exception, which callers handle.
    }
  }
  return 0;
}
