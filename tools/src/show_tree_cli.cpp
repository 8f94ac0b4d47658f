#include "show_tree_cli.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include <mpi.h>

#include "command_options.hpp"
#include "hiertune/tree/csel_show.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/tree/site_tree.hpp"
#include "hiertune/tree/tree_coverage.hpp"
#include "hiertune/db/measure_db.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

// Each row's source from the coverage file beside the tree (tune writes it, install-tree
// installs it); none without one, or with one of another tree (said on stderr).
std::vector<std::string> row_sources(const std::string& tree, const std::vector<csel::TableRow>& rows) {
    const std::optional<TreeCoverage> coverage = coverage_of_tree(tree, std::cerr, "sources not shown");
    std::vector<std::string> sources;
    if (!coverage) return sources;
    for (const csel::TableRow& row : rows) sources.push_back(row_source(*coverage, row));
    return sources;
}

// The CH4 tree installed with the site's tree, if any: where, whether MPID_Init loads it.
void show_site_ch4_tree(const std::filesystem::path& site, bool site_loads) {
    const std::filesystem::path path = ch4_tree_path(site);
    std::error_code error;
    if (!std::filesystem::exists(path, error)) return;
    std::cout << "site CH4 tree: " << path.string() << " (hiertune show-tree " << path.string() << " shows it)\n";
    const std::vector<std::string> problems = site_ch4_tree_problems(site, MPICH_VERSION);
    for (const std::string& problem : problems) std::cout << "refused: " << problem << '\n';
    if (!problems.empty())
        std::cout << "MPID_Init refuses it: jobs run on MPICH's built-in CH4 tree\n";
    else
        std::cout << (site_loads ? "MPID_Init loads it with the site tree, for every job whose environment names "
                                   "no CH4 tree\n"
                                 : "MPID_Init loads it only with the site tree, which is refused\n");
}

// The site's installed tree: where it is, its record, whether this MPICH loads it.
std::string show_site_tree() {
    const std::filesystem::path path = site_tree_path(mpich_prefix());
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        throw UsageError("no site tree at " + path.string() +
                         " (hiertune install-tree TREE installs one; show-tree FILE shows another tree)");
    std::cout << "site tree: " << path.string() << '\n';
    if (const std::optional<SiteRecord> record = read_site_record(path)) {
        std::cout << "measured on " << record->machine << " (" << record->cluster << ") at " << record->measured
                  << " with MPICH " << record->mpich_version << "; installed " << record->installed << " from "
                  << record->source << '\n';
        if (record->latency_bytes > 0)
            std::cout << "by_size crossovers: alpha/beta " << record->latency_bytes
                      << " bytes, as measured (MPIR_CVAR_HIER_LATENCY_BYTES in a job's environment overrides it)\n";
    }
    const std::vector<std::string> problems = site_tree_problems(path, MPICH_VERSION);
    for (const std::string& problem : problems) std::cout << "refused: " << problem << '\n';
    std::cout << (problems.empty() ? "MPI_Init loads it for every job whose environment names no tree "
                                     "(MPIR_CVAR_HIER_SITE_TREE=0 leaves it out)\n"
                                   : "MPI_Init refuses it: jobs run on MPICH's built-in tree\n");
    show_site_ch4_tree(path, problems.empty());
    return path.string();
}

}  // namespace

CLI::App* ShowTreeCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "show-tree",
        "Print what an MPIR Csel JSON tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) selects per collective, "
        "comm size, ppn and message-size range, walked as MPICH 5.0.1 walks it");
    command->add_option("file", tree_path_,
                        "The tree (JSON); default: the site's installed tree (hiertune install-tree), with "
                        "its record and whether MPI_Init loads it");
    command->add_option("-C,--collective", collectives_,
                        "Collectives to show (repeatable or comma-separated; default bcast,reduce,allreduce)")
        ->delimiter(',')
        ->check(CLI::IsMember(csel::known_collectives()));
    command->add_option("--comm-sizes", comm_sizes_,
                        "Comm sizes, e.g. 8,16 (default: both sides of the tree's comm_size bounds)")
        ->delimiter(',')
        ->check(CLI::Range(1, 1 << 20));
    command->add_option("--ppn", ppns_,
                        "Ranks per node, e.g. 1,2,4 (default: 1, 2 and both sides of the tree's comm_avg_ppn "
                        "bounds); above the comm size means one node")
        ->delimiter(',')
        ->check(CLI::Range(1, 1 << 20));
    command->add_option("--type-size", type_size_, "Bytes per element: count = bytes / type size")
        ->check(CLI::Range(1, 1 << 20))
        ->capture_default_str();
    command->add_flag("--json", json_, "A JSON array of row objects");
    return command;
}

int ShowTreeCli::run() {
    const std::string path = tree_path_.empty() ? show_site_tree() : tree_path_;
    const csel::Json tree = csel::load_tree(path);
    // MPICH walks the whole tree when it loads it: problems off the table's paths count too
    // (checked as the tree's own level: an MPIR tree, or CH4's compositions)
    const std::vector<std::string> problems = grammar::check_tree(tree, grammar::level_of(tree));
    for (const std::string& problem : problems) std::cerr << "hiertune: warning: " << problem << '\n';
    if (!problems.empty())
        std::cerr << "hiertune: warning: MPI_Init refuses this tree (" << problems.size() << " problem"
                  << (problems.size() == 1 ? "" : "s") << ")\n";
    csel::TableOptions options;
    options.collectives = collectives_;
    options.comm_sizes = comm_sizes_;
    options.ppns = ppns_;
    options.type_size = type_size_;
    std::vector<csel::TableRow> rows;
    try {
        rows = csel::selection_table(tree, options);
    } catch (const std::exception& e) {  // a walk MPICH would assert in: name the file
        throw UsageError(path + ": " + e.what());
    }
    const std::vector<std::string> sources = row_sources(path, rows);
    if (json_)
        std::cout << csel::table_json(rows, sources).dump(2) << '\n';
    else
        csel::print_table(rows, std::cout, sources);
    return 0;
}

}  // namespace hiertune
