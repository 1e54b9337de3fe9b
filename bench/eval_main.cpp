// gpualert-eval: scores our classifier and the paper's two baselines on a labelled
// corpus (anchor format labels.jsonl, or wild_labels.tsv) side by side.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// CLI11's headers trip GCC 12's -Wnull-dereference through libstdc++ inlining.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#pragma GCC diagnostic pop
#include <nlohmann/json.hpp>

#include "baselines.hpp"
#include "calibration.hpp"
#include "gpualert/classifier/classifier.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Sample {
  std::string id, mode, source, split;
  fs::path log;
  std::optional<int> exit_code;
  std::optional<std::string> slurm_state;  // what accounting said, when the sample came from Slurm
};

// log_path is relative to the labels file's directory (our corpus) or to its parent
// (the anchor corpus: "corpus/injected/x.log" next to corpus/labels.jsonl). Try both.
fs::path resolve(const fs::path& labels_dir, const std::string& rel) {
  const fs::path p(rel);
  if (p.is_absolute()) return p;
  for (const fs::path& base : {labels_dir, labels_dir.parent_path()}) {
    const fs::path c = base / p;
    if (fs::exists(c)) return c;
  }
  // "corpus/x.log" when the labels file is corpus/labels.jsonl: drop the shared prefix.
  auto it = p.begin();
  if (it != p.end() && *it == labels_dir.filename()) {
    fs::path rest;
    for (++it; it != p.end(); ++it) rest /= *it;
    if (fs::exists(labels_dir / rest)) return labels_dir / rest;
  }
  return labels_dir / p;
}

std::vector<Sample> load_labels(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  const fs::path dir = fs::absolute(file).parent_path();
  std::vector<Sample> out;
  std::string line;
  std::size_t n = 0;
  const bool tsv = file.extension() == ".tsv";
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    if (tsv) {
      // With a header row (id, class, exit_code, slurm_state, ...) columns go by name;
      // without one: id <TAB> mode <TAB> true_exit_code. The log is <dir>/logs/<id>.log
      // when that folder exists, else <dir>/<id>.log.
      std::vector<std::string> f;
      std::stringstream ss(line);
      std::string cell;
      while (std::getline(ss, cell, '\t')) f.push_back(cell);
      if (n == 1 && !f.empty() && f[0] == "id") {
        header = f;
        continue;
      }
      const auto col = [&](const char* name, std::size_t fallback) -> std::string {
        std::size_t i = fallback;
        if (!header.empty()) {
          const auto it = std::find(header.begin(), header.end(), name);
          if (it == header.end()) return "";
          i = static_cast<std::size_t>(it - header.begin());
        }
        return i < f.size() ? f[i] : "";
      };
      if (f.size() < 2) throw std::runtime_error(file.string() + ":" + std::to_string(n) + ": expected id, mode, exit code");
      s.id = f[0];
      s.mode = header.empty() ? f[1] : col("class", 1);
      if (const std::string e = col("exit_code", 2); !e.empty()) s.exit_code = std::stoi(e);
      if (const std::string st = col("slurm_state", 99); !st.empty()) s.slurm_state = st;
      s.source = "wild";
      s.log = fs::is_directory(dir / "logs") ? dir / "logs" / (s.id + ".log") : dir / (s.id + ".log");
    } else {
      json j;
      try {
        j = json::parse(line);
      } catch (const std::exception& e) {
        throw std::runtime_error(file.string() + ":" + std::to_string(n) + ": " + e.what());
      }
      s.id = j.value("id", "");
      s.mode = j.value("mode", j.value("class", ""));
      s.source = j.value("source", "unspecified");
      s.split = j.value("split", "");
      if (j.contains("slurm_state") && j["slurm_state"].is_string()) s.slurm_state = j["slurm_state"].get<std::string>();
      if (j.contains("true_exit_code") && j["true_exit_code"].is_number_integer()) s.exit_code = j["true_exit_code"].get<int>();
      else if (j.contains("exit_code") && j["exit_code"].is_number_integer()) s.exit_code = j["exit_code"].get<int>();
      s.log = resolve(dir, j.value("log_path", s.id + ".log"));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The anchor corpus starts each log with "[inject] mode=<label> ...": a label leak.
// Baselines see the log without it; ours sees the raw log (its rules never read it,
// which a unit test checks).
std::string strip_inject(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l))
    if (l.rfind("[inject]", 0) != 0) out += l + "\n";
  return out;
}

struct ClassStats {
  std::size_t tp = 0, fp = 0, fn = 0, support = 0;
};

struct Score {
  std::map<std::string, ClassStats> per_class;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> confusion;
  double macro_f1 = 0, accuracy = 0;
  std::size_t n = 0;
};

double f1(const ClassStats& c) {
  const double p = c.tp + c.fp ? double(c.tp) / double(c.tp + c.fp) : 0;
  const double r = c.tp + c.fn ? double(c.tp) / double(c.tp + c.fn) : 0;
  return p + r > 0 ? 2 * p * r / (p + r) : 0;
}

// Macro-F1 over the classes that occur in the labels (a predicted class that no
// sample carries only costs precision/recall of the true classes).
Score score(const std::vector<const Sample*>& samples, const std::map<std::string, std::string>& pred) {
  Score s;
  std::size_t correct = 0;
  for (const Sample* x : samples) {
    const std::string& p = pred.at(x->id);
    auto& t = s.per_class[x->mode];
    ++t.support;
    if (p == x->mode) {
      ++t.tp;
      ++correct;
    } else {
      ++t.fn;
      ++s.per_class[p].fp;
      s.confusion[{x->mode, p}].push_back(x->id);
    }
  }
  s.n = samples.size();
  double sum = 0;
  std::size_t k = 0;
  for (const auto& [cls, c] : s.per_class)
    if (c.support) {
      sum += f1(c);
      ++k;
    }
  s.macro_f1 = k ? sum / double(k) : 0;
  s.accuracy = s.n ? double(correct) / double(s.n) : 0;
  return s;
}

json score_json(const Score& s) {
  json j;
  j["n"] = s.n;
  j["macro_f1"] = s.macro_f1;
  j["accuracy"] = s.accuracy;
  for (const auto& [cls, c] : s.per_class) {
    const double p = c.tp + c.fp ? double(c.tp) / double(c.tp + c.fp) : 0;
    const double r = c.tp + c.fn ? double(c.tp) / double(c.tp + c.fn) : 0;
    j["classes"][cls] = {{"precision", p}, {"recall", r}, {"f1", f1(c)}, {"support", c.support}};
  }
  j["confusion"] = json::array();
  for (const auto& [k, ids] : s.confusion)
    j["confusion"].push_back({{"true", k.first}, {"predicted", k.second}, {"count", ids.size()},
                              {"examples", std::vector<std::string>(ids.begin(), ids.begin() + std::min<std::size_t>(3, ids.size()))}});
  return j;
}

void print_score(const std::string& title, const Score& s) {
  std::cout << "  " << title << ": macro-F1 " << std::fixed << std::setprecision(3) << s.macro_f1 << "  accuracy "
            << s.accuracy << "  (n=" << s.n << ")\n";
}

void print_table(const std::string& name, const Score& s) {
  std::cout << "\n" << name << " per class (all samples)\n";
  std::cout << "  " << std::left << std::setw(18) << "class" << std::right << std::setw(7) << "prec" << std::setw(7) << "rec"
            << std::setw(7) << "F1" << std::setw(9) << "support\n";
  for (const auto& [cls, c] : s.per_class) {
    const double p = c.tp + c.fp ? double(c.tp) / double(c.tp + c.fp) : 0;
    const double r = c.tp + c.fn ? double(c.tp) / double(c.tp + c.fn) : 0;
    std::cout << "  " << std::left << std::setw(18) << cls << std::right << std::fixed << std::setprecision(3) << std::setw(7)
              << p << std::setw(7) << r << std::setw(7) << f1(c) << std::setw(8) << c.support << "\n";
  }
  if (!s.confusion.empty()) {
    std::cout << "  confusions (true -> predicted: count, examples):\n";
    std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> v(s.confusion.begin(), s.confusion.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    for (const auto& [k, ids] : v) {
      std::cout << "    " << k.first << " -> " << k.second << ": " << ids.size() << "  ";
      for (std::size_t i = 0; i < ids.size() && i < 3; ++i) std::cout << (i ? ", " : "") << ids[i];
      std::cout << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Score gpualert's classifier and the paper's baselines on a labelled corpus"};
  std::vector<std::string> labels;
  std::string which = "all";
  bool as_json = false, strict = false;
  double min_f1 = -1;
  std::vector<std::string> extra_rules;
  app.add_option("labels", labels, "labels.jsonl (anchor format) or wild_labels.tsv")->required();
  app.add_option("--classifier", which, "ours|exit|keyword|all")->check(CLI::IsMember({"ours", "exit", "keyword", "all"}));
  app.add_flag("--json", as_json, "machine-readable output");
  app.add_flag("--strict", strict,
               "score our primary class as is; by default a class finer than the label set is projected onto the label set via "
               "the verdict's 'broader' ids (e.g. env_mismatch raised as a RuntimeError counts as runtime_error)");
  app.add_option("--rules", extra_rules, "extra rule files for our classifier");
  bool fit = false;
  app.add_flag("--fit-calibration", fit,
               "score our classifier's raw (uncalibrated) confidence and print the isotonic calibration points fitted "
               "to these samples, as a rule file's 'calibration' object");
  std::string split;
  app.add_option("--split", split, "score only the samples whose label has this 'split' (e.g. dev; holdout only at the end of a cycle); samples of a set without splits are all kept");
  app.add_option("--min-macro-f1", min_f1, "exit 1 if our all-sample macro-F1 is below this");
  CLI11_PARSE(app, argc, argv);

  std::vector<Sample> samples;
  try {
    for (const auto& l : labels) {
      auto v = load_labels(l);
      for (auto& x : v)
        if (split.empty() || x.split.empty() || x.split == split) samples.push_back(std::move(x));
    }
  } catch (const std::exception& e) {
    std::cerr << "gpualert-eval: " << e.what() << "\n";
    return 2;
  }
  std::set<std::string> vocab;
  for (const auto& s : samples) vocab.insert(s.mode);

  std::vector<std::string> names;
  if (which == "all" || which == "ours") names.push_back("ours");
  if (which == "all" || which == "keyword") names.push_back("keyword");
  if (which == "all" || which == "exit") names.push_back("exit");

  std::optional<gpualert::classify::Classifier> ours;
  try {
    std::vector<fs::path> extra(extra_rules.begin(), extra_rules.end());
    ours.emplace(gpualert::classify::Classifier::with_builtin_rules(extra));
    ours->set_raw_confidence(fit);
  } catch (const std::exception& e) {
    std::cerr << "gpualert-eval: " << e.what() << "\n";
    return 2;
  }

  std::map<std::string, std::map<std::string, std::string>> preds;  // classifier -> id -> class
  std::map<std::string, std::string> strict_ours;
  std::map<std::string, double> confidence_ours;
  std::size_t missing = 0;
  for (const auto& s : samples) {
    if (!fs::exists(s.log)) {
      ++missing;
      std::cerr << "gpualert-eval: missing log for " << s.id << ": " << s.log << "\n";
    }
    const std::string text = fs::exists(s.log) ? read_all(s.log) : std::string();
    for (const auto& n : names) {
      std::string p;
      if (n == "ours") {
        gpualert::classify::RunStatus st;
        st.exit_code = s.exit_code;
        st.slurm_state = s.slurm_state;
        const auto v = ours->classify_text(text, st);
        p = v.cls;
        strict_ours[s.id] = p;
        confidence_ours[s.id] = v.confidence;
        if (!strict && !vocab.count(p))
          for (const auto& b : v.broader)
            if (vocab.count(b)) {
              p = b;
              break;
            }
      } else if (n == "keyword") {
        p = gpualert::bench::keyword_baseline(strip_inject(text));
      } else {
        p = gpualert::bench::exit_code_baseline(s.exit_code);
      }
      preds[n][s.id] = p;
    }
  }

  // The GPUAlert paper's fifteen classes (taxonomy.md), scored on their own as well.
  static const std::set<std::string> kPaperFifteen = {
      "cuda_oom", "nccl", "cuda_runtime", "ram_oom", "segfault", "file_not_found", "permission", "missing_module",
      "div_zero", "device_mismatch", "nan_loss", "oom_killer", "traceback", "assertion", "runtime_error"};
  std::map<std::string, std::vector<const Sample*>> groups;
  for (const auto& s : samples) {
    groups["all"].push_back(&s);
    groups["source=" + s.source].push_back(&s);
    if (kPaperFifteen.count(s.mode)) groups["paper's fifteen classes"].push_back(&s);
  }

  json out;
  double ours_all = -1;
  for (const auto& n : names) {
    for (const auto& [g, v] : groups) {
      const Score sc = score(v, preds[n]);
      if (n == "ours" && g == "all") ours_all = sc.macro_f1;
      out[n][g] = score_json(sc);
    }
  }
  if (std::find(names.begin(), names.end(), "ours") != names.end())
    out["ours_strict_all_macro_f1"] = score(groups["all"], strict_ours).macro_f1;

  // Is a verdict at confidence c right about c of the time? (our classifier, all samples)
  gpualert::bench::Calibration calibration;
  if (std::find(names.begin(), names.end(), "ours") != names.end()) {
    for (const auto& s : samples) calibration.add(confidence_ours[s.id], preds["ours"][s.id] == s.mode);
    out["ours_calibration"] = calibration.to_json();
  }

  // The same question per class ours named: is a "healthy" at 0.8 right 8 times in 10?
  // (mean confidence against the share right, for each predicted class)
  std::map<std::string, gpualert::bench::Band> by_class;
  if (calibration.count()) {
    for (const auto& s : samples) {
      auto& b = by_class[preds["ours"][s.id]];
      ++b.n;
      b.correct += preds["ours"][s.id] == s.mode ? 1 : 0;
      b.confidence_sum += confidence_ours[s.id];
    }
    json jc = json::object();
    double gap = 0;
    for (const auto& [cls, b] : by_class) {
      jc[cls] = {{"n", b.n}, {"mean_confidence", b.mean_confidence()}, {"accuracy", b.accuracy()}};
      gap += std::fabs(b.accuracy() - b.mean_confidence()) * double(b.n) / double(calibration.count());
    }
    out["ours_calibration_by_class"] = jc;
    out["ours_class_calibration_error"] = gap;
  }

  if (fit) {
    std::vector<std::pair<double, bool>> xs;
    for (const auto& s : samples) xs.emplace_back(confidence_ours[s.id], preds["ours"][s.id] == s.mode);
    json pts = json::array();
    for (const auto& [raw, cal] : gpualert::bench::fit_isotonic(xs, 25, 0.05, 0.95)) pts.push_back({raw, cal});
    // Then, per class named, what the map leaves over or under that class's share right,
    // shrunk towards 0 by n / (n + 20) so that a class seen rarely moves little.
    const fs::path tmp = fs::temp_directory_path() / ("gpualert-eval-points-" + std::to_string(::getpid()) + ".json");
    std::ofstream(tmp) << json{{"schema", 1}, {"calibration", {{"points", pts}}}}.dump();
    const auto mapped = gpualert::classify::Classifier::with_builtin_rules({tmp});
    fs::remove(tmp);
    std::map<std::string, gpualert::bench::Band> cls_band;
    for (const auto& s : samples) {
      const std::string& p = strict_ours[s.id];
      if (p == "unknown") continue;  // unknown keeps its raw confidence
      auto& b = cls_band[p];
      ++b.n;
      b.correct += preds["ours"][s.id] == s.mode ? 1 : 0;
      b.confidence_sum += mapped.calibrated(confidence_ours[s.id], p);
    }
    json offsets = json::object();
    for (const auto& [cls, b] : cls_band) {
      if (b.n < 8) continue;
      const double d = double(b.n) / (double(b.n) + 20.0) * (b.accuracy() - b.mean_confidence());
      if (std::fabs(d) >= 0.01) offsets[cls] = std::round(std::clamp(d, -0.5, 0.5) * 1000.0) / 1000.0;
    }
    std::cout << json{{"points", pts}, {"by_class", offsets}}.dump() << "\n";
    return 0;
  }

  if (as_json) {
    out["samples"] = samples.size();
    out["missing_logs"] = missing;
    out["projection"] = !strict;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "gpualert-eval: " << samples.size() << " samples, " << vocab.size() << " label classes"
              << (missing ? ", " + std::to_string(missing) + " logs missing" : "") << "\n";
    for (const auto& n : names) {
      std::cout << "\n== " << n
                << (n == "ours" ? " (gpualert rules + exit status)"
                                : n == "keyword" ? " (unordered keyword match)" : " (exit-code inspection)")
                << "\n";
      for (const auto& [g, v] : groups) print_score(g, score(v, preds[n]));
      if (n == "ours" && !strict)
        std::cout << "  (strict, without projecting finer classes onto the label set: macro-F1 " << std::fixed
                  << std::setprecision(3) << out["ours_strict_all_macro_f1"].get<double>() << ")\n";
    }
    for (const auto& n : names) print_table(n, score(groups["all"], preds[n]));
    if (calibration.count()) {
      std::cout << "\nours: reliability (accuracy per confidence band)\n" << calibration.table();
      std::cout << "\nours: reliability per class named (mean confidence against the share right)\n"
                << "  class                          n  mean conf  accuracy    gap\n";
      for (const auto& [cls, b] : by_class) {
        char row[160];
        std::snprintf(row, sizeof row, "  %-28s %4zu      %.3f     %.3f  %+.3f\n", cls.c_str(), b.n, b.mean_confidence(),
                      b.accuracy(), b.mean_confidence() - b.accuracy());
        std::cout << row;
      }
      std::printf("  class calibration error (|gap| weighted by verdicts): %.3f\n",
                  out["ours_class_calibration_error"].get<double>());
      std::fflush(stdout);
    }
  }
  if (min_f1 >= 0 && ours_all >= 0 && ours_all < min_f1) {
    std::cerr << "gpualert-eval: our macro-F1 " << ours_all << " is below the required " << min_f1 << "\n";
    return 1;
  }
  return 0;
}
