#include "gpualert/events/gpu_inventory.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <system_error>

#include "gpualert/events/kernel_events.hpp"

namespace gpualert::events {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "Key: \t value" lines; the driver's file is a few hundred bytes, so 16 KiB is plenty.
bool read_information(const std::filesystem::path& file, Gpu& g, std::string& why) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    why = "cannot be read";
    return false;
  }
  std::string text(16 * 1024, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::string_view rest = text;
  std::string bus;
  bool minor_seen = false;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "Bus Location") {
      bus = std::string(value);
    } else if (key == "Device Minor") {
      int n = 0;
      bool digits = !value.empty() && value.size() < 6;
      for (char c : value) {
        if (!std::isdigit(static_cast<unsigned char>(c))) digits = false;
        else n = n * 10 + (c - '0');
      }
      if (digits) {
        g.minor = n;
        minor_seen = true;
      }
    } else if (key == "GPU UUID") {
      g.uuid = std::string(value.substr(0, 80));
    } else if (key == "Model") {
      g.model = std::string(value.substr(0, 120));
    }
  }
  const auto id = normalize_bus_id(bus);
  if (!id) {
    why = bus.empty() ? "has no Bus Location line" : "has a Bus Location that is no PCI address";
    return false;
  }
  if (!minor_seen) {
    why = "has no readable Device Minor line";
    return false;
  }
  g.bus_id = *id;
  return true;
}

}  // namespace

GpuInventory read_gpu_inventory(const std::filesystem::path& dir) {
  GpuInventory inv;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    inv.notes.push_back("no NVIDIA driver on this node (" + dir.string() + " is absent)");
    return inv;
  }
  inv.driver = true;
  std::filesystem::directory_iterator it(dir, ec), end;
  if (ec) {
    inv.notes.push_back(dir.string() + " cannot be listed: " + ec.message());
    return inv;
  }
  for (; it != end && inv.gpus.size() < 64; it.increment(ec)) {
    if (ec) break;
    Gpu g;
    std::string why;
    const auto file = it->path() / "information";
    if (read_information(file, g, why)) inv.gpus.push_back(std::move(g));
    else inv.notes.push_back(file.string() + " " + why + ": that GPU is left out");
  }
  std::sort(inv.gpus.begin(), inv.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.bus_id < b.bus_id; });
  if (inv.gpus.empty() && inv.notes.empty()) inv.notes.push_back(dir.string() + " lists no GPU");
  return inv;
}

GpuSelection select_gpus(const GpuInventory& inv, std::string_view list, IndexMeaning meaning) {
  GpuSelection out;
  list = trim(list);
  if (list.empty()) {
    out.known = true;  // an empty list: the job was given no GPU
    return out;
  }
  if (inv.gpus.empty()) {
    out.note = inv.notes.empty() ? "the node's GPUs could not be listed" : inv.notes.front();
    return out;
  }
  bool one_model = true;
  for (const auto& g : inv.gpus) one_model = one_model && g.model == inv.gpus.front().model;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view item = trim(list.substr(0, comma));
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
    if (item.empty()) continue;
    const Gpu* found = nullptr;
    if (item.rfind("GPU-", 0) == 0) {
      for (const auto& g : inv.gpus)
        if (g.uuid.rfind(item, 0) == 0) {
          if (found) {
            out.note = "'" + std::string(item.substr(0, 48)) + "' names more than one GPU";
            return out;
          }
          found = &g;
        }
    } else if (!item.empty() && item.size() < 4 &&
               std::all_of(item.begin(), item.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      const int n = std::stoi(std::string(item));
      if (meaning == IndexMeaning::device_minor) {
        for (const auto& g : inv.gpus)
          if (g.minor == n) found = &g;
      } else if (meaning == IndexMeaning::pci_order || one_model) {
        if (static_cast<std::size_t>(n) < inv.gpus.size()) found = &inv.gpus[static_cast<std::size_t>(n)];
      } else {
        out.note = "CUDA numbers GPUs fastest first on a node of several models: set CUDA_DEVICE_ORDER=PCI_BUS_ID "
                   "or name GPUs by UUID to tell which GPU " + std::string(item) + " is";
        return out;
      }
    }
    if (!found) {
      out.note = "'" + std::string(item.substr(0, 48)) + "' names no GPU of this node";
      return out;
    }
    if (std::find(out.bus_ids.begin(), out.bus_ids.end(), found->bus_id) == out.bus_ids.end())
      out.bus_ids.push_back(found->bus_id);
  }
  out.known = true;
  return out;
}

}  // namespace gpualert::events
