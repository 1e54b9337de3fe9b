"""The Debian packages build from a clean copy of the source and are lintian-clean.

`dpkg-buildpackage -us -uc` in a copy holding only what a clean checkout holds, then
lintian with warnings as failures and a look inside: the plugin where Slurm looks, its
plugstack line shipped, the Slurm release pinned, the config a conffile. The two
packages are left in GPUALERT_PACKAGE_OUT for package.debian, which installs them.
This part needs no root and no cluster, so CTest runs it beside the Slurm suite."""
import glob
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from test_package import SRC, sh  # the package test's own helpers (its setup does not run here)

PACKAGE_OUT = os.environ.get("GPUALERT_PACKAGE_OUT", "")
state = {}


def setUpModule():
    if not shutil.which("dpkg-buildpackage") or not shutil.which("dh"):
        raise unittest.SkipTest("needs dpkg-dev and debhelper")
    if not PACKAGE_OUT:
        raise unittest.SkipTest("GPUALERT_PACKAGE_OUT names no directory")
    state["tmp"] = tempfile.mkdtemp(prefix="gpualert-pkgbuild-")
    os.chmod(state["tmp"], 0o755)
    shutil.rmtree(PACKAGE_OUT, ignore_errors=True)
    os.makedirs(PACKAGE_OUT)


def tearDownModule():
    shutil.rmtree(state.get("tmp", "/nonexistent"), ignore_errors=True)


class DebianPackageBuild(unittest.TestCase):
    maxDiff = None

    def test_1_builds_from_a_clean_copy_lintian_clean_and_hardened(self):
        src = os.path.join(state["tmp"], "gpualert")
        # What a clean checkout holds: git's files when this is a clone, else the tree without build dirs.
        if os.path.isdir(os.path.join(SRC, ".git")):
            files = sh(["git", "-C", SRC, "ls-files", "-z", "--cached", "--others", "--exclude-standard"]).stdout
            os.makedirs(src)
            p = subprocess.run(["tar", "-C", SRC, "--null", "-T", "-", "-cf", "-"], input=files,
                               stdout=subprocess.PIPE, check=True)
            subprocess.run(["tar", "-C", src, "-xf", "-"], input=p.stdout, check=True)
        else:
            shutil.copytree(SRC, src, symlinks=True, ignore=shutil.ignore_patterns("build*", ".git"))
        t0 = time.time()
        # Niced: it runs beside the Slurm suite, whose daemons should not wait on a compiler.
        b = sh(["nice", "-n", "10", "dpkg-buildpackage", "-us", "-uc", "-j%d" % os.cpu_count()], cwd=src,
               timeout=1500, check=False)
        self.assertEqual(b.returncode, 0, b.stdout.decode()[-4000:] + b.stderr.decode()[-4000:])
        print("\n  dpkg-buildpackage: %.0f s" % (time.time() - t0), flush=True)
        by_name = {os.path.basename(d).split("_")[0]: d for d in glob.glob(os.path.join(state["tmp"], "*.deb"))
                   if "-dbgsym_" not in d}
        self.assertEqual(sorted(by_name), ["gpualert", "gpualert-slurm"], by_name)
        debs = [by_name["gpualert"], by_name["gpualert-slurm"]]
        changes = glob.glob(os.path.join(state["tmp"], "*.changes"))
        lint = sh(["nice", "-n", "10", "lintian", "--fail-on", "error,warning", "--no-tag-display-limit"] + changes, check=False)
        self.assertEqual(lint.returncode, 0, "lintian:\n" + lint.stdout.decode() + lint.stderr.decode())
        # Contents: where Slurm and systemd look, and the plugin's line shipped off.
        listing = sh(["dpkg-deb", "-c", debs[1]]).stdout.decode()
        self.assertIn("./usr/lib/x86_64-linux-gnu/slurm-wlm/gpualert.so", listing)
        self.assertIn("./etc/slurm/plugstack.conf.d/gpualert.conf", listing)
        self.assertIn("slurm-client (<< 22.06~)", sh(["dpkg-deb", "-f", debs[1], "Depends"]).stdout.decode())
        conffiles = sh(["dpkg-deb", "-I", debs[0], "conffiles"]).stdout.decode()
        self.assertIn("/etc/gpualert/gpualert.conf", conffiles)

        # Only now, whole and checked, do they become package.debian's input.
        for d in debs:
            shutil.copy2(d, PACKAGE_OUT)


if __name__ == "__main__":
    unittest.main()
