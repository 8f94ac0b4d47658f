// `hiertune generate`: a Csel JSON tree from a measurement database (lib/generate).
#pragma once

#include <string>
#include <vector>

#include "command.hpp"
#include "hiertune/tree/generate.hpp"
#include "hiertune/db/measure_db.hpp"

namespace hiertune {

class GenerateCli : public Command {
public:
    CLI::App* bind(CLI::App& app) override;
    int run() override;

    // The parsed options as generate_tree takes them.  Throws UsageError.
    GenerateOptions options() const;

private:
    std::string db_path_;
    std::string stock_path_;
    std::string output_path_;
    std::string from_ = "measured";
    std::vector<std::string> collectives_;
    std::vector<JobId> jobs_;
    std::string size_range_;
    std::vector<std::string> sizes_;
    bool prune_ = false;
    bool no_collapse_ = false;
    std::vector<int> comm_sizes_;
    std::vector<std::string> segsizes_;
    std::vector<int> chain_fanouts_;
};

}  // namespace hiertune
