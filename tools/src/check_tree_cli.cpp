#include "check_tree_cli.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

CLI::App* CheckTreeCli::bind(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "check-tree",
        "Check Csel JSON trees against MPICH 5.0.1's keys and the plugin's grammar, as MPI_Init does: one line "
        "per problem (exit 1 if any; 2 if a file cannot be read)");
    command->add_option("files", paths_, "Tree files (JSON)")->required();
    command->add_option("--level", level_,
                        "mpir: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE; ch4: MPIR_CVAR_CH4_COLL_SELECTION_"
                        "TUNING_JSON_FILE; auto: from the tree's first container")
        ->check(CLI::IsMember({"auto", "mpir", "ch4"}))
        ->capture_default_str();
    return command;
}

namespace {

// A file that cannot be opened is bad input (exit 2, before any file is checked); what a
// file holds, JSON or not, is the check's verdict (exit 1), in MPI_Init's words.
void require_readable(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) throw UsageError("'" + path + "' is a directory, not a tree file");
    if (!std::ifstream(path)) throw UsageError("cannot read '" + path + "': " + std::strerror(errno));
}

}  // namespace

int CheckTreeCli::run() {
    for (const std::string& path : paths_) require_readable(path);
    int failed = 0;
    for (const std::string& path : paths_) {
        grammar::Level level = level_ == "ch4" ? grammar::Level::ch4 : grammar::Level::mpir;
        std::vector<std::string> collectives;
        try {  // a file that does not load is reported by the check itself
            const csel::Json tree = csel::load_tree(path);
            if (level_ == "auto") level = grammar::level_of(tree);
            collectives = csel::collectives_of(tree);
        } catch (const csel::TreeError&) {
        }
        const std::vector<std::string> problems = grammar::check_tree_file(path, level);
        for (const std::string& problem : problems) std::cout << path << ": " << problem << '\n';
        const char* kind = level == grammar::Level::ch4 ? "CH4" : "MPIR";
        if (!problems.empty()) {
            std::cout << path << ": " << problems.size() << " problem(s) in this " << kind << " tree\n";
            ++failed;
            continue;
        }
        // what the tree leaves out: MPIR trees are merged over MPICH's built-in one at
        // MPI_Init, CH4 trees fall back to the MPIR level
        std::cout << path << ": ok (" << kind << " tree, " << collectives.size() << " collectives; "
                  << (level == grammar::Level::mpir ? "the others keep MPICH's built-in choices"
                                                    : "the others go to the MPIR level")
                  << ")\n";
    }
    return failed ? 1 : 0;
}

}  // namespace hiertune
