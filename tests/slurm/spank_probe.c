/*
 * gaprobe: a tiny SPANK plugin used only by tests/slurm/toggle_test.sh to prove that the test
 * cluster's plugstack switching (restart_slurmd.sh) really loads and unloads a plugin, and to
 * record what a job_epilog hook sees. It is not part of gpualert.
 *
 * Build: gcc -shared -fPIC -O2 -Wall -o gaprobe.so spank_probe.c
 * plugstack: optional /path/gaprobe.so log=/some/dir     (dir must exist; written as root)
 * Option:   --gaprobe[=tag]
 *
 * In the slurmd, job_script (prolog/epilog) and remote (slurmstepd) contexts it appends one line per
 * hook to DIR/hooks.log. job_epilog also writes its whole process environment to
 * DIR/epilog-env.<jobid>.<SLURMD_NODENAME>. It never fails a hook (a failing epilog drains the node).
 */
#include <stdint.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

SPANK_PLUGIN(gaprobe, 1);

extern char **environ;
static char g_dir[512] = "";

static int opt_cb(int val, const char *optarg, int remote)
{
    (void)val; (void)optarg; (void)remote;
    return 0;
}

/* Registered from slurm_spank_init (a static spank_options[] table is not offered by sbatch:
 * "sbatch: unrecognized option"). */
static struct spank_option g_opt = {
    "gaprobe", "[tag]", "tests/slurm probe plugin (records hooks)", 2, 0, opt_cb
};

static const char *ctx_name(void)
{
    switch (spank_context()) {
    case S_CTX_LOCAL: return "local";
    case S_CTX_REMOTE: return "remote";
    case S_CTX_ALLOCATOR: return "allocator";
    case S_CTX_SLURMD: return "slurmd";
    case S_CTX_JOB_SCRIPT: return "job_script";
    default: return "error";
    }
}

static void parse_args(int ac, char **av)
{
    for (int i = 0; i < ac; i++)
        if (strncmp(av[i], "log=", 4) == 0)
            snprintf(g_dir, sizeof g_dir, "%s", av[i] + 4);
}

static void note(spank_t sp, const char *hook)
{
    uint32_t job = 0;
    char *opt = NULL, path[700], node[128] = "", unset[64];
    spank_err_t rc;
    FILE *f;

    if (!g_dir[0] || getuid() != 0)
        return;
    spank_get_item(sp, S_JOB_ID, &job);
    /* opt=VALUE from spank_option_getopt, or opt=<unset:RC> when it fails (option not given) */
    rc = spank_option_getopt(sp, &g_opt, &opt);
    if (rc != ESPANK_SUCCESS) {
        snprintf(unset, sizeof unset, "<unset:%d>", (int)rc);
        opt = unset;
    }
    gethostname(node, sizeof node - 1);
    snprintf(path, sizeof path, "%s/hooks.log", g_dir);
    if ((f = fopen(path, "a"))) {
        fprintf(f, "hook=%s ctx=%s job=%u pid=%d host=%s node=%s opt=%s\n", hook, ctx_name(), job,
                (int)getpid(), node, getenv("SLURMD_NODENAME") ? getenv("SLURMD_NODENAME") : "-",
                opt ? opt : "(null)");
        fclose(f);
    }
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    parse_args(ac, av);
    if (spank_option_register(sp, &g_opt) != ESPANK_SUCCESS)
        return 0; /* never fail: the option just is not there */
    if (spank_context() == S_CTX_SLURMD || spank_context() == S_CTX_REMOTE)
        note(sp, "init");
    return 0;
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    parse_args(ac, av);
    note(sp, "job_prolog");
    return 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    uint32_t job = 0;
    char path[800];
    FILE *f;
    const char *node = getenv("SLURMD_NODENAME");

    parse_args(ac, av);
    note(sp, "job_epilog");
    if (!g_dir[0])
        return 0;
    spank_get_item(sp, S_JOB_ID, &job);
    snprintf(path, sizeof path, "%s/epilog-env.%u.%s", g_dir, job, node ? node : "unknown");
    if ((f = fopen(path, "w"))) {
        for (char **e = environ; *e; e++)
            fprintf(f, "%s\n", *e);
        fclose(f);
    }
    return 0;
}
