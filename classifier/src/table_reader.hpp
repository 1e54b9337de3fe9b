#pragma once
// Metrics printed as a table: a header row that names the columns and rows of
// numbers under it. YOLO prints "Epoch GPU_mem box_loss cls_loss ... Instances Size"
// and then "1/100 2.61G 1.234 2.345 ..."; a Hugging Face notebook prints
// "| Step | Training Loss | Validation Loss |" and "| 500 | 0.6931 | 0.7012 |".
// No loss rule can read such a row (the row names nothing): the header does.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpualert::classify::detail {

class TableReader {
 public:
  // Whether LINE heads a metrics table: columns parted by '|', tabs or runs of
  // spaces (one space apart is a sentence, "the epoch loss is ..."), no number among
  // their names, one of them a training loss and one an epoch, step or iteration
  // counter. Cheap: most lines fail on the first test.
  static bool looks_like_header(std::string_view line);
  // A row of YOLOv3/v5/v7's results.txt, which has no header: "  54/54  14G  0.0093
  // 0.00101  0  0.01033  18  640  0.9542 ..." (epoch/last epoch, GPU memory, box, object,
  // class and total loss, labels, image size, then validation figures). Cheap: most
  // lines fail on their first character.
  static bool headerless_yolo_row(std::string_view line);
  // The header such rows are read under: the total loss is the training loss.
  static constexpr std::string_view kYoloResultsHeader = "Epoch  gpu_mem  box  obj  cls  total_loss  labels  img_size";
  // LINE's columns become the current table's.
  void set_header(std::string_view line);
  bool active() const { return loss_col_ >= 0; }
  // Cheap: may LINE be a row of the current table (its first character that is not a
  // blank, '|' or carriage return a digit)?
  bool maybe_row(std::string_view line) const;

  struct Row {
    std::string loss_key;    // the loss column's name, lower case
    std::string loss_value;  // as printed ("1.234", "nan")
    std::optional<std::int64_t> epoch;
    std::uint64_t epoch_total = 0;  // "3/100" under "Epoch": 100
    std::optional<std::uint64_t> step;
    std::uint64_t step_total = 0;
  };
  // The row's loss and counters when LINE is a row of the current table: as many cells
  // as the header has columns (more may follow: YOLO's progress bar), the counter and
  // the loss cells numbers, and with only blanks between cells every cell a number.
  std::optional<Row> row(std::string_view line) const;

 private:
  std::vector<std::string> columns_;
  bool piped_ = false;  // "| a | b |": cells are parted by '|', and may hold words ("No log")
  int loss_col_ = -1, epoch_col_ = -1, step_col_ = -1;
};

}  // namespace gpualert::classify::detail
