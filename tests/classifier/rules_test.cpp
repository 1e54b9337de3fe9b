// Rule files: the built-in set is valid; bad files fail loudly; sites can extend.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "gpualert/classifier/taxonomy.hpp"
#include "test_util.hpp"

namespace gpualert::classify::test {
namespace {

namespace fs = std::filesystem;

struct RuleFile {
  fs::path path;
  explicit RuleFile(const std::string& text, const std::string& name = "site.json") {
    path = fs::temp_directory_path() / ("gpualert-rules-" + std::to_string(::getpid()) + "-" + std::to_string(++n) + "-" + name);
    std::ofstream(path) << text;
  }
  ~RuleFile() { std::error_code ec; fs::remove(path, ec); }
  static inline int n = 0;
};

std::string error_of(const std::vector<fs::path>& files) {
  try {
    (void)Classifier::with_builtin_rules(files);
  } catch (const RuleError& e) {
    return e.what();
  }
  return "";
}

TEST(Rules, BuiltinSetLoads) {
  const Classifier c = Classifier::with_builtin_rules();
  EXPECT_GT(c.rule_count(), 60u);
}

TEST(Rules, TheSourceFilesMatchTheBuiltinSet) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(GPUALERT_RULES_DIR))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(Classifier::from_files(files).rule_count(), builtin().rule_count());
}

// The fast matcher reads bytes, RE2 reads UTF-8: a non-ASCII letter in a pattern (a
// Chinese loss word inside a case-insensitive rule) matched under RE2 but went unmatched
// in the matcher's shared database, so the two paths disagreed. Built-in patterns stay
// ASCII; a site rule that needs other scripts is read the same way by both only if
// FastPath.SameVerdictsInOtherLanguages says so.
TEST(Rules, BuiltinPatternsAreAscii) {
  for (const auto& e : fs::directory_iterator(GPUALERT_RULES_DIR)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (line.find("\"pattern\"") == std::string::npos && line.find("\"frames") == std::string::npos) continue;
      for (unsigned char c : line) EXPECT_LT(c, 0x80u) << e.path().filename() << " line " << n;
    }
  }
}

TEST(Rules, JsonSyntaxErrorNamesFileAndLine) {
  RuleFile f("{\n  \"schema\": 1,\n  \"rules\": [ { \"id\": \"x\", }\n  ]\n}\n", "broken.json");
  const std::string msg = error_of({f.path});
  EXPECT_NE(msg.find("broken.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

TEST(Rules, ABrokenSiteFileFallsBackToTheBuiltinSetAndSaysWhy) {
  RuleFile f("{ not json", "broken-site.json");
  std::string note;
  const Classifier c = Classifier::with_builtin_rules_or_alone({f.path}, note);
  EXPECT_EQ(c.rule_count(), builtin().rule_count());
  EXPECT_NE(note.find("broken-site.json"), std::string::npos) << note;
  std::string none;
  (void)Classifier::with_builtin_rules_or_alone({}, none);
  EXPECT_EQ(none, "");
}

TEST(Rules, InvalidRe2PatternIsAnError) {
  RuleFile f(R"js({"schema":1,"rules":[{"id":"site.bad","class":"cuda_oom","pattern":"(unclosed","says":"x"}]})js", "badre.json");
  const std::string msg = error_of({f.path});
  EXPECT_NE(msg.find("badre.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("site.bad"), std::string::npos) << msg;
  // Backtracking-only syntax is rejected too: RE2 has no lookahead.
  RuleFile g(R"js({"schema":1,"rules":[{"id":"site.look","class":"cuda_oom","pattern":"a(?=b)","says":"x"}]})js");
  EXPECT_NE(error_of({g.path}).find("site.look"), std::string::npos);
}

TEST(Rules, UnknownClassIdIsAnError) {
  RuleFile f(R"js({"schema":1,"rules":[{"id":"site.x","class":"gpu_on_fire","pattern":"fire","says":"x"}]})js", "cls.json");
  const std::string msg = error_of({f.path});
  EXPECT_NE(msg.find("gpu_on_fire"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cls.json"), std::string::npos) << msg;
}

TEST(Rules, UnknownKeyIsAnError) {
  RuleFile f(R"js({"schema":1,"rules":[{"id":"site.x","class":"nccl","patern":"x"}]})js");
  EXPECT_NE(error_of({f.path}).find("patern"), std::string::npos);
}

TEST(Rules, SiteRuleChangesAVerdict) {
  const std::string log = "step 1 loss 2.0\nLUSTRE-ERR: scratch quota exhausted for user bob\n";
  EXPECT_EQ(run(log, 1).cls, "unknown");
  RuleFile f(R"js({"schema":1,
    "classes": {"permission": {"remedy": "Ask the storage team to raise your quota."}},
    "rules":[{"id":"site.lustre_quota","class":"permission","pattern":"LUSTRE-ERR: .*quota exhausted for user (?P<user>\\w+)",
              "says":"Lustre quota exhausted for {user}"}]})js");
  const Classifier c = Classifier::with_builtin_rules({f.path});
  const Verdict v = c.classify_text(log, exit_status(1));
  EXPECT_EQ(v.cls, "permission");
  EXPECT_EQ(v.remedy, "Ask the storage team to raise your quota.");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("Lustre quota exhausted for bob"), std::string::npos);
}

TEST(Rules, MatchIsFilledWithoutAnyGroup) {
  // "{match}" in a claim is the matched text even when the pattern names no group.
  const std::string log = "step 1 loss 2.0\nLUSTRE-ERR: scratch quota exhausted\n";
  RuleFile f(R"js({"schema":1, "rules":[{"id":"site.lustre","class":"permission",
              "pattern":"scratch quota exhausted|project quota exhausted", "says":"Lustre says: {match}"}]})js");
  const Verdict v = Classifier::with_builtin_rules({f.path}).classify_text(log, exit_status(1));
  ASSERT_EQ(v.cls, "permission");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("Lustre says: scratch quota exhausted"), std::string::npos) << v.shows.front();
}

TEST(Rules, SiteCanDisableABuiltinRule) {
  const std::string log = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
  RuleFile f(R"js({"schema":1,"rules":[{"id":"gpu.cuda_oom.torch","disabled":true},
                                      {"id":"gpu.cuda_oom.torch2","disabled":true},
                                      {"id":"py.cuda_oom_type","disabled":true}]})js");
  const Classifier c = Classifier::with_builtin_rules({f.path});
  EXPECT_EQ(run(log, 1).cls, "cuda_oom");
  EXPECT_NE(c.classify_text(log, exit_status(1)).cls, "cuda_oom");
  EXPECT_LT(c.rule_count(), builtin().rule_count());
}

TEST(Rules, EveryCoveredClassHasWording) {
  // Each class that a verdict can name has a headline and a remedy in the built-in set.
  for (const char* cls : {"cuda_oom", "nccl", "cuda_runtime", "ram_oom", "segfault", "file_not_found", "permission",
                          "missing_module", "div_zero", "device_mismatch", "nan_loss", "oom_killer", "traceback", "assertion",
                          "runtime_error", "healthy", "unknown", "signal_kill", "timeout", "cancelled", "node_fail",
                          "preempted", "config_error", "asset_error", "data_error", "env_mismatch", "checkpoint_load",
                          "rendezvous", "gpu_hardware", "divergence"}) {
    ASSERT_NE(find_class(cls), nullptr) << cls;
  }
  const Verdict v = run("ZeroDivisionError: division by zero\n", 1);
  EXPECT_FALSE(v.remedy.empty());
  EXPECT_EQ(v.remedy.find('{'), std::string::npos) << v.remedy;  // no unfilled placeholder
}

TEST(Taxonomy, FamiliesAndAttribution) {
  ASSERT_NE(find_class("gpu_hardware"), nullptr);
  EXPECT_EQ(find_class("gpu_hardware")->attribution, "infra");
  EXPECT_EQ(find_class("timeout")->family, "scheduler");
  EXPECT_EQ(find_class("no_such_class"), nullptr);
  EXPECT_GE(all_classes().size(), 38u);
}

// A site rule the fast matcher cannot take ("(?U)", RE2's ungreedy flag) still works,
// checked on every line by RE2, and the classifier says so instead of staying silent.
TEST(Rules, ARuleTheFastMatcherCannotTakeStillWorksAndIsNamed) {
  RuleFile f(R"({"schema": 1, "rules": [{"id": "site.quota", "class": "ram_oom",
                 "pattern": "(?U)memory quota of job (\\w+) exceeded"}]})");
  const Classifier c = Classifier::with_builtin_rules({f.path});
  ASSERT_TRUE(c.build_fast_matcher());
  ASSERT_EQ(c.engine_notes().size(), 1u);
  EXPECT_NE(c.engine_notes()[0].find("site.quota"), std::string::npos) << c.engine_notes()[0];
  const auto v = c.classify_text("step 10 loss 2.0\nmemory quota of job 77 exceeded\n", exit_status(1));
  EXPECT_EQ(v.cls, "ram_oom") << to_text_for_test(v);
}

}  // namespace
}  // namespace gpualert::classify::test
