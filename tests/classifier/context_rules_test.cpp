// Rules that read more than one line: where an exception was raised (its traceback
// frames), waiting states that later progress resolves, and collapsing loss scales.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gpualert/classifier/classifier.hpp"
#include "test_util.hpp"

using namespace gpualert::classify;
using namespace gpualert::classify::test;

namespace {

std::string torch_frames(const std::string& func, const std::string& err) {
  return "Traceback (most recent call last):\n"
         "  File \"/job/train.py\", line 40, in <module>\n"
         "    state = torch.load(args.ckpt)\n"
         "  File \"/usr/lib/python3/dist-packages/torch/serialization.py\", line 795, in " + func + "\n"
         "    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)\n" + err + "\n";
}

}  // namespace

TEST(FrameContext, AGenericExceptionInsideTorchLoadIsACheckpointLoad) {
  EXPECT_EQ(run(torch_frames("load", "EOFError: Ran out of input"), 1).cls, "checkpoint_load");
  EXPECT_EQ(run(torch_frames("_legacy_load", "KeyError: \"filename 'storages' not found\""), 1).cls, "checkpoint_load");
  // The same exception with no loader on the stack stays generic.
  EXPECT_EQ(run("Traceback (most recent call last):\n  File \"/job/train.py\", line 3, in <module>\n    next(it)\n"
                "EOFError: Ran out of input\n", 1).cls,
            "traceback");
}

TEST(FrameContext, SavingIsNotLoading) {
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"/job/train.py\", line 50, in <module>\n    torch.save(model.state_dict(), path)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/serialization.py\", line 422, in save\n"
      "    with _open_zipfile_writer(f) as opened_zipfile:\n"
      "RuntimeError: Parent directory /scratch/run/final does not exist.\n";
  EXPECT_NE(run(log, 1).cls, "checkpoint_load");
}

TEST(FrameContext, AMessageRuleStillBeatsTheCallSite) {
  // A missing checkpoint file is file_not_found even inside torch.load.
  EXPECT_EQ(run(torch_frames("load", "FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/last.pt'"), 1).cls,
            "file_not_found");
}

TEST(FrameContext, PickleErrorsDependOnTheCallSite) {
  EXPECT_EQ(run(torch_frames("load", "_pickle.UnpicklingError: invalid load key, '<'."), 1).cls, "checkpoint_load");
  EXPECT_EQ(run("Traceback (most recent call last):\n  File \"/job/prep.py\", line 6, in <module>\n"
                "    ds = pickle.load(open(\"cache.pkl\", \"rb\"))\n_pickle.UnpicklingError: pickle data was truncated\n", 1).cls,
            "data_error");
}

TEST(FrameContext, ArgumentParsingErrorsAreConfigErrors) {
  const std::string cut =  // a pasted log that starts inside the traceback
      "    model_args, data_args, training_args = parser.parse_args_into_dataclasses()\n"
      "  File \"/env/lib/python3.10/site-packages/transformers/hf_argparser.py\", line 348, in parse_args_into_dataclasses\n"
      "    raise ValueError(f\"Some specified arguments are not used by the HfArgumentParser: {remaining_args}\")\n"
      "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--q_max_len', '32']\n";
  EXPECT_EQ(run(cut, std::nullopt).cls, "config_error");
  const std::string post_init =
      "Traceback (most recent call last):\n  File \"/job/train.py\", line 12, in <module>\n    args = TrainingArguments(**cfg)\n"
      "  File \"<string>\", line 118, in __init__\n"
      "  File \"/env/site-packages/transformers/training_args.py\", line 1385, in __post_init__\n"
      "    raise ValueError(\"--load_best_model_at_end requires the save and eval strategy to match\")\n"
      "ValueError: --load_best_model_at_end requires the save and eval strategy to match\n";
  EXPECT_EQ(run(post_init, 1).cls, "config_error");
  // A yacs-style config (detectron2, maskrcnn-benchmark and their kin) rejecting the
  // command line's overrides: any exception under cfg.merge_from_list(args.opts).
  const std::string yacs =
      "Traceback (most recent call last):\n  File \"tools/train.py\", line 296, in <module>\n    cfg.merge_from_list(args.opts)\n"
      "  File \"/job/lib/config/defaults.py\", line 107, in merge_from_list\n    raise ValueError(\"odd override list\")\n"
      "ValueError: Override list has odd length: ['2']\n";
  EXPECT_EQ(run(yacs, 1).cls, "config_error");
  // The same exception raised in the training loop is the code's.
  std::string in_loop = yacs;
  in_loop.replace(in_loop.find("merge_from_list\n"), 16, "train_one_epoch\n");
  EXPECT_NE(run(in_loop, 1).cls, "config_error");
}

TEST(FrameContext, RuleFileRejectsFrameKeysOnLineRulesAndBadFramePatterns) {
  const auto dir = std::filesystem::temp_directory_path() / ("ga-frames-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto f = dir / "bad.json";
  for (const char* rule : {R"({"id": "x", "class": "traceback", "pattern": "a", "frames": "b"})",
                           R"({"id": "x", "class": "traceback", "pattern": "a", "frames_unless": "b"})",
                           R"({"id": "x", "class": "traceback", "match": "exception", "pattern": "a", "frames_unless": "("})"}) {
    std::ofstream(f, std::ios::trunc) << R"({"schema": 1, "rules": [)" << rule << "]}";
    EXPECT_THROW(Classifier::with_builtin_rules({f}), std::exception) << rule;
  }
  std::filesystem::remove_all(dir);
}

TEST(WaitingStates, ABarrierWaitIsTheCauseOnlyIfNothingFollows) {
  const std::string wait =
      "Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
      "(world_size=4, worker_count=8, timeout=0:30:00)\n";
  EXPECT_EQ(run(wait + wait, std::nullopt).cls, "rendezvous");
  const Verdict later = run(wait + "step 1 loss 2.0\nstep 2 loss 1.8\nsegfault here\n", -6);
  EXPECT_NE(later.cls, "rendezvous");
}

TEST(LossScale, ACollapsedLossScaleIsNanLoss) {
  std::string log;
  for (double s = 1.0; s > 1e-4; s /= 2) log += "| WARNING: overflow detected, setting loss scale to: " + std::to_string(s) + "\n";
  EXPECT_EQ(run(log, std::nullopt).cls, "nan_loss");
  // Early halving from 65536 is normal dynamic loss scaling.
  EXPECT_NE(run("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\nstep 1 loss 2.0\n"
                "step 2 loss 1.5\nstep 3 loss 1.0\n", 0).cls,
            "nan_loss");
  // DeepSpeed gives up at the minimum scale; Keras' TerminateOnNaN stops the fit.
  EXPECT_EQ(run("step 1 loss 2.0\nException: Current loss scale already at minimum - cannot decrease scale anymore. "
                "Exiting run.\n", 1).cls,
            "nan_loss");
  EXPECT_EQ(run("Epoch 3/10\nBatch 120: Invalid loss, terminating training\n", std::nullopt).cls, "nan_loss");
}

TEST(NativeCrashHandlers, CaughtSignalNamesTheSignal) {
  const Verdict v = run("Caught signal 7 (Bus error: nonexistent physical address)\n==== backtrace (tid:   3458) ====\n", std::nullopt);
  EXPECT_EQ(v.cls, "signal_kill");
}

TEST(Ranks, TheFailingRankIsNamed) {
  const Verdict v = run(
      "[rank3]: Traceback (most recent call last):\n[rank3]:   File \"/w/train.py\", line 180, in main\n[rank3]:     loss.backward()\n"
      "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
      "[rank0]:[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88) ran for "
      "1800010 milliseconds before timing out.\n",
      1);
  EXPECT_EQ(v.cls, "cuda_oom");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("(rank 3)"), std::string::npos) << v.shows.front();
  bool consequence = false;
  for (const auto& f : v.secondary) consequence |= f.cls == "nccl" && f.summary.find("rank 0") != std::string::npos;
  EXPECT_TRUE(consequence);
}

TEST(NoExitStatus, OnlyAClearlyWrongLossIsAVerdict) {
  std::string rising, few;
  for (int i = 1; i <= 30; ++i) rising += "step " + std::to_string(i) + " loss " + std::to_string(1.0 + 0.2 * i) + "\n";
  const Verdict v = run(rising, std::nullopt);
  EXPECT_EQ(v.cls, "divergence");
  EXPECT_LE(raw_confidence(rising, std::nullopt), 0.6);
  ASSERT_FALSE(v.cannot_decide.empty());
  EXPECT_NE(v.cannot_decide.front().find("No exit status"), std::string::npos);
  // Two steps of a pasted fragment are not "undertrained".
  EXPECT_EQ(run("step 1 loss 2.0\nstep 2 loss 1.9\n", std::nullopt).cls, "unknown");
  EXPECT_EQ(run("step 1 loss 2.0\nstep 2 loss 1.9\n", 0).cls, "undertrained");
}

TEST(Sections, TheSlurmHelpersTaskHeadersNameTheTaskAndNode) {
  const std::string log =
      "==> 0.task0.p100.log: srun #0, node vm1, task 0 <==\n"
      "step 1 loss 2.0\n"
      "[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12) ran for 600434 "
      "milliseconds before timing out.\n"
      "==> 0.task1.p100.log: srun #0, node vm2, task 1 <==\n"
      "Traceback (most recent call last):\n  File \"/w/train.py\", line 10, in <module>\n    loss.backward()\n"
      "==> 0.task2.p100.log: srun #0, node vm2, task 2 <==\n"
      "Traceback (most recent call last):\n  File \"/w/train.py\", line 10, in <module>\n    loss.backward()\n"
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
  const Verdict v = run(log, 1);
  EXPECT_EQ(v.cls, "cuda_oom");
  ASSERT_FALSE(v.shows.empty());
  EXPECT_NE(v.shows.front().find("(srun #0, node vm2, task 2)"), std::string::npos) << v.shows.front();
  bool node = false;
  for (const auto& [k, val] : v.facts) node |= k == "node" && val == "vm2";
  EXPECT_TRUE(node);
  bool peer = false;
  for (const auto& f : v.secondary) peer |= f.cls == "nccl" && f.summary.find("node vm1, task 0") != std::string::npos;
  EXPECT_TRUE(peer);
}

TEST(LauncherSummary, TorchrunsRootCauseBlockIsCited) {
  const Verdict v = run(
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n============================================================\n"
      "train.py FAILED\n------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n"
      "------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
      "  time      : 2024-03-02_11:22:01\n  host      : gpu-a12.example\n  rank      : 5 (local_rank: 1)\n"
      "  exitcode  : -7 (pid: 4410)\n  error_file: <N/A>\n  traceback : Signal 7 (SIGBUS) received by PID 4410\n"
      "============================================================\n",
      1);
  EXPECT_EQ(v.cls, "signal_kill");
  bool cited = false;
  for (const auto& s : v.shows) cited |= s.find("rank 5 on host gpu-a12.example (exit code -7)") != std::string::npos;
  EXPECT_TRUE(cited);
  bool host = false;
  for (const auto& [k, val] : v.facts) host |= k == "host" && val == "gpu-a12.example";
  EXPECT_TRUE(host);
}

TEST(SchedulerContext, ARequeuedRunThatStartedOverIsAResumeFromScratch) {
  std::string log;
  for (int i = 1; i <= 30; ++i) log += "step " + std::to_string(i) + " loss " + std::to_string(8.0 / i) + "\n";
  RunStatus st;
  st.exit_code = 0;
  st.slurm_state = "COMPLETED";
  EXPECT_EQ(builtin().classify_text(log, st).cls, "healthy");
  st.resume_expected = "Slurm requeued the job 1 time, so this run should have continued the first";
  const Verdict v = builtin().classify_text(log, st);
  EXPECT_EQ(v.cls, "resume_from_scratch");
  bool cited = false;
  for (const auto& s : v.shows) cited |= s.find("requeued the job 1 time") != std::string::npos;
  EXPECT_TRUE(cited);
}

TEST(SchedulerContext, TimeUsedAgainstTheLimitIsShown) {
  RunStatus st;
  st.exit_code = 0;
  st.slurm_state = "TIMEOUT";
  st.elapsed_s = 3612;
  st.time_limit_s = 3600;
  const Verdict v = builtin().classify_text("step 1 loss 2.0\nstep 2 loss 1.9\nstep 3 loss 1.7\n", st);
  EXPECT_EQ(v.cls, "timeout");
  bool shown = false;
  for (const auto& s : v.shows) shown |= s.find("time limit (100%)") != std::string::npos;
  EXPECT_TRUE(shown) << to_text_for_test(v);
}

TEST(Warnings, AWarningNamingACauseLeadsOnlyWhenTheRunFailedAndNothingElseExplainsIt) {
  const std::string log =
      "node1:313:313 [0] misc/cudawrap.cc:270 NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime "
      "version'\nbench exited 1\n";
  const Verdict failed = run(log, 1);
  EXPECT_EQ(failed.cls, "env_mismatch");
  EXPECT_LE(raw_confidence(log, 1), 0.45);
  EXPECT_NE(run(log + "step 1 loss 2.0\nstep 2 loss 1.0\nstep 3 loss 0.5\n", 0).cls, "env_mismatch");
}

TEST(Resume, AnUppercaseEnvironmentFlagIsAResumeRequest) {
  std::string log = "RESUME=1 CKPT_DIR=outputs\n";
  for (int i = 1; i <= 10; ++i) log += "step " + std::to_string(10 * i) + "/300 loss " + std::to_string(12.0 / i) + "\n";
  EXPECT_EQ(run(log, 0).cls, "resume_from_scratch");
}

// Root cause over symptom at start-up: the installed software is the wrong version.
TEST(RootCause, AnInstalledLibraryOfTheWrongVersionIsAnEnvironmentMismatch) {
  const std::string tb = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import x\n";
  EXPECT_EQ(run(tb + "ImportError: cannot import name 'is_torch_fx_available' from 'transformers.utils' "
                     "(/opt/conda/lib/python3.10/site-packages/transformers/utils/__init__.py)\n", 1).cls,
            "env_mismatch");
  // From the job's own module, or from an empty namespace, it is not the environment's version.
  EXPECT_NE(run(tb + "ImportError: cannot import name 'get_model' from 'utils.models' (/home/u/proj/utils/models.py)\n", 1).cls,
            "env_mismatch");
  EXPECT_EQ(run(tb + "ImportError: cannot import name 'Trainer' from 'transformers' (unknown location)\n", 1).cls,
            "missing_module");
  EXPECT_EQ(run(tb + "ImportError: peft>=0.5.0 is required for a normal functioning of this module, but found peft==0.4.0.\n", 1).cls,
            "env_mismatch");
  EXPECT_EQ(run("nvcc fatal   : Unsupported gpu architecture 'compute_90'\nRuntimeError: Error building extension 'fused_adam'\n", 1).cls,
            "env_mismatch");
  EXPECT_EQ(run(tb + "TypeError: Descriptors cannot not be created directly.\n", 1).cls, "env_mismatch");
  const std::string auto_frames =
      "  File \"/opt/conda/lib/python3.10/site-packages/transformers/models/auto/configuration_auto.py\", line 734, in "
      "__getitem__\n    raise KeyError(key)\n";
  EXPECT_EQ(run(tb + auto_frames + "KeyError: 'qwen2'\n", 1).cls, "env_mismatch");
  EXPECT_NE(run(tb + "KeyError: 'qwen2'\n", 1).cls, "env_mismatch") << "a KeyError elsewhere is the code's";
}

TEST(RootCause, ASettingTheLaunchCannotMeetIsAConfigError) {
  const std::string tb = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\n";
  EXPECT_EQ(run(tb + "ValueError: The global batch size 30 is not divisible by the number of GPUs 4\n", 1).cls, "config_error");
  EXPECT_EQ(run("Error merging 'config.yaml' with schema\nKey 'trainer.max_epoch' not in 'TrainerConfig'\n"
                "    full_key: trainer.max_epoch\n",
                1).cls,
            "config_error");
}

TEST(RootCause, ALibraryReachingForAnAttributeItsDependencyLacksIsAnEnvironmentMismatch) {
  const std::string apex =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 4, in <module>\n    import apex\n"
      "  File \"/opt/conda/lib/python3.8/site-packages/apex/normalization/fused_layer_norm.py\", line 18, in supports_custom_op\n"
      "    return hasattr(torch.library, \"custom_op\")\n"
      "AttributeError: module 'torch' has no attribute 'library'\n";
  EXPECT_EQ(run(apex, 1).cls, "env_mismatch");
  // Pasted into an issue tracker the indentation is gone; the frames are still frames.
  std::string flat;
  for (std::size_t at = 0; at < apex.size();) {
    const auto nl = apex.find('\n', at);
    const std::string line = apex.substr(at, nl - at);
    flat += line.substr(std::min(line.find_first_not_of(' '), line.size())) + "\n";
    at = nl + 1;
  }
  EXPECT_EQ(run(flat, 1).cls, "env_mismatch");
  // The job's own code reaching for a missing attribute is the job's bug.
  EXPECT_NE(run("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    torch.libary.x()\n"
                "AttributeError: module 'torch' has no attribute 'libary'\n",
                1).cls,
            "env_mismatch");
}

// `import pkg` in the job's script failing inside an installed package.
std::string import_traceback(const std::string& innermost_frame, const std::string& source, const std::string& exception) {
  return "Traceback (most recent call last):\n"
         "  File \"/home/u/train.py\", line 9, in <module>\n    import pkg\n"
         "  File \"/env/lib/python3.10/site-packages/" + innermost_frame + "\n    " + source + "\n" + exception + "\n";
}

TEST(RootCause, AnInstalledPackageThatFailsWhileBeingImportedIsAnEnvironmentMismatch) {
  // A SciPy built for another NumPy raises a bare TypeError during `import sklearn`; an
  // earlier typo in the batch script (a later, non-fatal command) does not outrank it.
  const std::string typo = "/var/spool/slurmd/job7/slurm_script: line 10: xport: command not found\n";
  const std::string source = "'iwrk': array([], dfitpack_int), 'u': array([], float),";
  EXPECT_EQ(run(typo + import_traceback("scipy/interpolate/_fitpack_impl.py\", line 103, in <module>", source, "TypeError"), 1).cls,
            "env_mismatch");
  // The same exception raised inside a function (the job called the package) is not an
  // import-time failure.
  EXPECT_NE(run(typo + import_traceback("scipy/interpolate/_fitpack_impl.py\", line 103, in splrep", source, "TypeError"), 1).cls,
            "env_mismatch");
  // Raised in the job's own module while importing: the job's code, not the stack.
  EXPECT_NE(run("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n"
                "    CFG = load()[\"x\"]\nTypeError: 'NoneType' object is not subscriptable\n",
                1).cls,
            "env_mismatch");
}

TEST(RootCause, AnEmptyModuleSpecLookupIsAMissingModule) {
  // torch_sparse finds its compiled library with importlib's find_spec(...).origin.
  const std::string frame = "torch_sparse/__init__.py\", line 16, in <module>";
  const std::string source = "f'{library}_{suffix}', [osp.dirname(__file__)]).origin)";
  EXPECT_EQ(run(import_traceback(frame, source, "AttributeError: 'NoneType' object has no attribute 'origin'"), 1).cls,
            "missing_module");
  // Another attribute of None is an ordinary bug.
  EXPECT_NE(run(import_traceback(frame, source, "AttributeError: 'NoneType' object has no attribute 'shape'"), 1).cls,
            "missing_module");
}

// Messages that say the installed library is another version than the code was written for.
TEST(RootCause, ALibraryOfAnotherVersionThanTheCodeIsAnEnvironmentMismatch) {
  const std::string tb = "Traceback (most recent call last):\n  File \"train.py\", line 30, in main\n    setup(args)\n";
  EXPECT_EQ(run(tb + "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'eval_strategy'\n", 1).cls,
            "env_mismatch");
  EXPECT_EQ(run(tb + "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'\n", 1).cls, "env_mismatch");
  // A function of the job's own taking a wrong keyword is the job's bug.
  EXPECT_NE(run(tb + "TypeError: build_model() got an unexpected keyword argument 'depth'\n", 1).cls, "env_mismatch");
  EXPECT_EQ(run(tb + "ValueError: Tokenizer class LlamaTokenizer does not exist or is not currently imported.\n", 1).cls,
            "env_mismatch");
  EXPECT_EQ(run("Using /root/.cache/torch_extensions as PyTorch extensions root...\n" + tb +
                    "RuntimeError: Error building extension 'fused_adam'\n", 1).cls,
            "env_mismatch");
  // A version range with several bounds; bitsandbytes built for another CUDA.
  EXPECT_EQ(run(tb + "ImportError: tokenizers>=0.11.1,!=0.11.3,<0.14 is required for a normal functioning of this module, "
                     "but found tokenizers==0.15.0.\n", 1).cls,
            "env_mismatch");
  EXPECT_EQ(run(tb + "RuntimeError:\n        CUDA Setup failed despite GPU being available. Please run the following "
                     "command to get more information:\n", 1).cls,
            "env_mismatch");
  // Windows cannot load a DLL the package needs: a library that cannot be loaded.
  const Verdict dll = run(tb + "OSError: [WinError 126] The specified module could not be found. Error loading "
                               "\"C:\\env\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n", 1);
  EXPECT_EQ(dll.cls, "missing_module");
  EXPECT_TRUE(std::any_of(dll.shows.begin(), dll.shows.end(), [](const std::string& s) { return s.find("fbgemm.dll") != std::string::npos; }));
}

TEST(RootCause, MixedPrecisionOnANodeWithoutAGpuIsASettingAndAStaleDriverIsTheStack) {
  const std::string tb = "Traceback (most recent call last):\n  File \"train.py\", line 30, in main\n    setup(args)\n";
  EXPECT_EQ(run(tb + "ValueError: fp16 mixed precision requires a GPU (not 'mps').\n", 1).cls, "config_error");
  EXPECT_NE(run(tb + "ValueError: fp16 mixed precision is unstable here\n", 1).cls, "config_error");
  // The kernel module was upgraded under a running node: the user-space library no longer fits it.
  EXPECT_EQ(run("Failed to initialize NVML: Driver/library version mismatch\n", 1).cls, "env_mismatch");
  // An empty or half-written Hugging Face checkpoint directory.
  EXPECT_EQ(run(tb + "ValueError: Can't find a checkpoint index (pytorch_model.bin.index.json) in out/checkpoint-500.\n", 1).cls,
            "checkpoint_load");
}

// A setting whose value the program does not know, or one it needs and was not given.
TEST(RootCause, ASettingsUnknownOrMissingValueIsAConfigError) {
  const std::string tb = "Traceback (most recent call last):\n  File \"train.py\", line 30, in main\n    setup(args)\n";
  for (const char* e : {"ValueError: Unknown scheduler type: cosine_with_warmup",
                        "ValueError: Invalid activation function: 'gelu2'",
                        "ValueError: Please specify `target_modules` in `peft_config`",
                        "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token."})
    EXPECT_EQ(run(tb + e + "\n", 1).cls, "config_error") << e;
  // Python's own type errors are the code's, whatever words they use.
  EXPECT_NE(run(tb + "TypeError: unsupported operand type(s) for /: 'int' and 'NoneType'\n", 1).cls, "config_error");
  EXPECT_NE(run(tb + "ValueError: invalid literal for int() with base 10: 'abc'\n", 1).cls, "config_error");
}
