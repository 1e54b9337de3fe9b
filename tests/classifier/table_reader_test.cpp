// The metrics-table reader (classifier/src/table_reader.hpp): which lines head a
// table, which lines are its rows, and what a row says.
#include <gtest/gtest.h>

#include "table_reader.hpp"

using gpualert::classify::detail::TableReader;

TEST(TableReader, HeadersOfTheCommonShapes) {
  EXPECT_TRUE(TableReader::looks_like_header("      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"));
  EXPECT_TRUE(TableReader::looks_like_header("| Step | Training Loss | Validation Loss | Accuracy |"));
  EXPECT_TRUE(TableReader::looks_like_header("Epoch\tTrain Loss\tVal Loss\tVal Acc"));
  EXPECT_TRUE(TableReader::looks_like_header("iter  loss  lr  grad_norm"));
}

TEST(TableReader, SentencesAndRecordsAreNoHeaders) {
  EXPECT_FALSE(TableReader::looks_like_header("The epoch loss is computed"));  // words one space apart
  EXPECT_FALSE(TableReader::looks_like_header("epoch loss lr"));
  EXPECT_FALSE(TableReader::looks_like_header("Epoch 3/10 loss 0.52 acc 0.81"));              // numbers: a record
  EXPECT_FALSE(TableReader::looks_like_header("epoch: 3, loss: 0.52"));                       // key: value
  EXPECT_FALSE(TableReader::looks_like_header("| Epoch | Validation Loss |"));                // no training loss
  EXPECT_FALSE(TableReader::looks_like_header("      GPU_mem   box_loss   cls_loss   Size"));  // no counter column
  EXPECT_FALSE(TableReader::looks_like_header("|------|---------------|"));
}

TEST(TableReader, AYoloRowUnderItsHeader) {
  TableReader t;
  EXPECT_FALSE(t.active());
  t.set_header("      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size");
  ASSERT_TRUE(t.active());
  const std::string row =
      "      3/100      2.61G      1.234      2.345      1.111         45        640: 100%|##########| 8/8 [00:02<00:00,  3.12it/s]";
  EXPECT_TRUE(t.maybe_row("\r" + row));  // a progress bar's line starts with a carriage return
  const auto r = t.row(row);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->loss_key, "box_loss");
  EXPECT_EQ(r->loss_value, "1.234");
  ASSERT_TRUE(r->epoch);
  EXPECT_EQ(*r->epoch, 3);
  EXPECT_EQ(r->epoch_total, 100u);
  EXPECT_FALSE(r->step);
  // YOLO's validation lines between the rows are not rows.
  EXPECT_FALSE(t.row("                   all        128        929      0.668      0.544      0.616      0.455"));
  EXPECT_FALSE(t.row("  0%|          | 0/8 [00:00<?, ?it/s]"));
  EXPECT_FALSE(t.row("      3/100      2.61G      1.234"));  // too few cells
}

TEST(TableReader, APipedRowMayHoldWordsOutsideItsCounterAndLoss) {
  TableReader t;
  t.set_header("| Step | Training Loss | Validation Loss | Accuracy |");
  auto r = t.row("| 500 | 0.693100 | No log | 0.5 |");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->loss_key, "training loss");
  EXPECT_EQ(r->loss_value, "0.693100");
  ASSERT_TRUE(r->step);
  EXPECT_EQ(*r->step, 500u);
  EXPECT_FALSE(t.row("| 100 | No log | 0.70 | 0.5 |"));  // the loss cell holds no number
  r = t.row("| 900 | nan | nan | 0.1 |");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->loss_value, "nan");
}

TEST(TableReader, WithOnlyBlanksBetweenCellsEveryCellIsANumber) {
  TableReader t;
  t.set_header("Epoch\tTrain Loss\tVal Loss\tVal Acc");
  const auto r = t.row("7\t0.8123\t0.9001\t0.712");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->loss_key, "train loss");
  EXPECT_EQ(*r->epoch, 7);
  EXPECT_FALSE(t.row("7 warnings were printed above"));
}

// fastai's fit table ends each row with the epoch's wall time, a clock.
TEST(TableReader, AClockCellIsANumberButAWordIsNot) {
  TableReader t;
  t.set_header("epoch     train_loss  valid_loss  accuracy  time    ");
  const auto r = t.row("3         0.412345    0.398765    0.870000  01:02   ");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->loss_key, "train_loss");
  EXPECT_EQ(r->loss_value, "0.412345");
  EXPECT_TRUE(t.row("3         0.412345    0.398765    0.870000  1:02:03"));
  EXPECT_FALSE(t.row("3         0.412345    0.398765    0.870000  01:0"));
  EXPECT_FALSE(t.row("3         0.412345    0.398765    0.870000  soon"));
}// YOLO's results.txt has no header: its rows are known by their shape, and read under
// the header they were printed with, the total loss as the training loss.
TEST(TableReader, AHeaderlessYoloResultsRow) {
  const std::string row =
      "     54/54       14G  0.009323   0.00101         0   0.01033        18       640    0.9542    0.8907    0.9418    0.5764";
  EXPECT_TRUE(TableReader::headerless_yolo_row(row));
  EXPECT_FALSE(TableReader::headerless_yolo_row("  54/54 [==============================] - 5s 3ms/step - loss: 0.03"));
  EXPECT_FALSE(TableReader::headerless_yolo_row("     54/54       14G  0.0093  0.001  0  0.0103  18  640  nan?  0.89  0.94"));
  EXPECT_FALSE(TableReader::headerless_yolo_row("54/54 14 0.0093 0.001 0 0.0103 18 640 0.95 0.89 0.94") ) << "no memory cell";
  TableReader t;
  t.set_header(TableReader::kYoloResultsHeader);
  const auto r = t.row(row);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->loss_key, "total_loss");
  EXPECT_EQ(r->loss_value, "0.01033");
  EXPECT_EQ(r->epoch, 54);
  EXPECT_EQ(r->epoch_total, 54u);
}


