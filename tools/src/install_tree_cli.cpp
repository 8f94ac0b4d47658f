#include "install_tree_cli.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include <mpi.h>

namespace hiertune {

namespace {

std::string host_name() {
    char name[256] = "";
    gethostname(name, sizeof(name) - 1);
    return name;
}

}  // namespace

CLI::App* InstallTreeCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "install-tree",
        "Install an MPIR tree as the site's tree: every job of this MPICH whose environment names no "
        "tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) loads it at MPI_Init; checked first, with a "
        "record of where and when it was measured (MPIR_CVAR_HIER_SITE_TREE=0 leaves it out); TREE.ch4 beside it "
        "(tune's CH4 tree) is installed with it and loaded with it, unless the job names a CH4 tree");
    command->add_option("tree", tree_, "The tree (JSON), e.g. tune's -o")->required()->check(CLI::ExistingFile);
    command->add_option("--prefix", prefix_, "The MPICH prefix; the tree goes to PREFIX/share/mpich-hier/tuning.json")
        ->capture_default_str();
    command->add_option("--machine", record_.machine, "Where it was measured (default: this host's name)");
    command->add_option("--cluster", record_.cluster,
                        "The cluster it was measured on, e.g. '4 nodes x 2 ranks, 100 Mbit/s' (default: "
                        "HIERTUNE_CLUSTER from the environment, else 'not recorded')");
    command->add_option("--measured", record_.measured, "When it was measured (default: the tree file's time)");
    command->add_option("--latency-bytes", record_.latency_bytes,
                        "The inter-node links' alpha / beta in bytes the tree was tuned with (tune prints it): "
                        "the by_size crossovers of every job that loads the tree, while "
                        "MPIR_CVAR_HIER_LATENCY_BYTES is 0 (default: TREE.latency_bytes, tune's, if there)")
        ->check(CLI::PositiveNumber);
    return command;
}

int InstallTreeCli::run() {
    if (record_.machine.empty()) record_.machine = host_name();
    if (record_.cluster.empty()) {
        const char* cluster = std::getenv("HIERTUNE_CLUSTER");
        record_.cluster = cluster && *cluster ? cluster : "not recorded";
    }
    if (record_.measured.empty()) record_.measured = utc_mtime(tree_);
    record_.mpich_version = MPICH_VERSION;
    const SiteRecord written = install_site_tree(tree_, prefix_, record_);
    std::cout << "installed " << site_tree_path(prefix_).string() << " (MPICH " << written.mpich_version
              << ", measured on " << written.machine << " at " << written.measured << ", "
              << written.tree_digest << ")\n";
    if (written.latency_bytes > 0)
        std::cout << "its jobs' by_size crossovers: alpha/beta " << written.latency_bytes
                  << " bytes (MPIR_CVAR_HIER_LATENCY_BYTES in a job's environment overrides it)\n";
    if (std::filesystem::exists(ch4_tree_path(site_tree_path(prefix_))))
        std::cout << "installed " << ch4_tree_path(site_tree_path(prefix_)).string()
                  << " (its CH4 tree; MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE in a job's environment "
                     "leaves it out)\n";
    std::cout
              << "every job of " << prefix_ << " whose environment names no tree loads it; "
              << "MPIR_CVAR_HIER_SITE_TREE=0 leaves it out\n";
    return 0;
}

}  // namespace hiertune
