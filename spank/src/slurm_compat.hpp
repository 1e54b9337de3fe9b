#pragma once
// Which Slurm releases the plugin builds against, decided at compile time. Every SPANK
// call and item it uses (spank_option_register, spank_option_getopt, spank_get_item
// with S_JOB_ID / S_JOB_UID / S_JOB_GID / S_JOB_STEPID / S_TASK_* / S_SLURM_VERSION_*,
// spank_getenv, spank_context, the task and job-epilog hooks) exists in every release
// from 20.11 on; older headers are refused here rather than at a node's first job. A
// call that only newer releases have goes behind GPUALERT_SLURM_AT_LEAST.
#include <slurm/slurm_version.h>

#define GPUALERT_SLURM_AT_LEAST(major, minor) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

static_assert(GPUALERT_SLURM_AT_LEAST(20, 11), "gpualert's SPANK plugin needs the headers of Slurm 20.11 or newer");
