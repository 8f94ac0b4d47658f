#include "generate_cli.hpp"

#include <iostream>

#include "command_options.hpp"
#include "hiertune/tree/csel_tree.hpp"
#include "hiertune/db/db_commands.hpp"
#include "hiertune/common/sizes.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

CLI::App* GenerateCli::bind(CLI::App& app) {
    CLI::App* generate = app.add_subcommand(
        "generate",
        "Write a complete MPIR Csel JSON tree (for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) from a database");
    generate->add_option("--db", db_path_, "Measurement database")->required();
    generate->add_option("--stock", stock_path_,
                         "MPICH's stock tree (maint/tuning/coll/mpir/generic.json) to start from")
        ->required();
    generate->add_option("-o,--output", output_path_, "Tree file to write")->required();
    generate->add_option("--from", from_,
                         "measured: fastest measured point per size; model: HAN task model vs measured stock; "
                         "analytic: the fitted analytic models ('hiertune fit')")
        ->check(CLI::IsMember({"measured", "model", "analytic"}))
        ->capture_default_str();
    generate->add_option("-C,--collective", collectives_,
                         "Collectives to tune (default: bcast,reduce,allreduce; model: bcast,allreduce,allgather; analytic: "
                         "bcast,reduce)")
        ->delimiter(',');
    generate->add_option("--job", jobs_, "Only these jobs (repeatable; see 'db list')")->allow_extra_args(false);
    generate->add_option("-m,--message-size", size_range_,
                         "--from model/analytic: [MIN:]MAX sizes to evaluate (default model: the measured stock "
                         "sizes, else 1:1M; analytic: 1:4M)");
    generate->add_option("--sizes", sizes_, "--from model/analytic: explicit sizes to evaluate")
        ->allow_extra_args(false);
    generate->add_option("--comm-sizes", comm_sizes_,
                         "--from analytic: comm sizes (default: powers of two up to 4x the fitted size, and it)")
        ->delimiter(',')
        ->check(CLI::Range(2, 1 << 20));
    generate->add_option("--segsizes", segsizes_,
                         "--from analytic: segment sizes of the seg_* candidates; model: inter_chunk values of the "
                         "seg_* inter-node candidates (default: gamma's segment sizes, model also 0)")
        ->delimiter(',');
    generate->add_option("--chain-fanouts", chain_fanouts_, "--from analytic/model: seg_chain fanouts (default 2,4)")
        ->delimiter(',')
        ->check(positive_number());
    generate->add_flag("--prune", prune_, "--from model: HAN III-C pruning heuristics");
    generate->add_flag("--no-collapse", no_collapse_,
                       "--from model: also consider every segment size larger than the message");
    return generate;
}

GenerateOptions GenerateCli::options() const {
    GenerateOptions options;
    options.source = from_ == "model"      ? GenerateSource::model
                     : from_ == "analytic" ? GenerateSource::analytic
                                           : GenerateSource::measured;
    options.collectives = collectives_;
    options.jobs = jobs_;
    if (!size_range_.empty() || !sizes_.empty()) {
        if (options.source == GenerateSource::measured)
            throw UsageError("-m/--sizes choose the sizes a model evaluates: they need --from model or analytic");
        options.sizes = message_sizes(size_range_, sizes_);
    }
    if (!comm_sizes_.empty() && options.source != GenerateSource::analytic)
        throw UsageError("--comm-sizes needs --from analytic");
    if ((!segsizes_.empty() || !chain_fanouts_.empty()) && options.source == GenerateSource::measured)
        throw UsageError("--segsizes and --chain-fanouts need --from model or analytic");
    options.comm_sizes = comm_sizes_;
    for (const std::string& text : segsizes_) options.segsizes.push_back(parse_size(text));
    if (!chain_fanouts_.empty()) options.chain_fanouts = chain_fanouts_;
    options.model.prune.enabled = prune_;
    options.model.collapse_oversize_segments = !no_collapse_;
    return options;
}

int GenerateCli::run() {
    const GenerateOptions options = this->options();
    const MeasureDb measurements = open_existing_db(db_path_);
    const csel::Json stock = csel::load_mpir_tree(stock_path_, "--stock");
    const GenerateReport report = generate_tree(measurements, stock, options);
    csel::save_tree(report.tree.tree, output_path_);
    for (const std::string& line : report.lines) std::cout << line << '\n';
    std::cout << "wrote " << output_path_ << " (" << csel::collectives_of(report.tree.tree).size()
              << " collectives); use it with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" << output_path_ << '\n';
    return 0;
}

}  // namespace hiertune
