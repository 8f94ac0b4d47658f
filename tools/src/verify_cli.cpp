#include "verify_cli.hpp"

#include <iostream>

#include "verify.hpp"

namespace hiertune {

CLI::App* VerifyCli::bind(CLI::App& app) {
    CLI::App* verify = app.add_subcommand(
        "verify", "Check through the plugin's pvars that collectives run what the loaded tree says "
                  "(under mpiexec; run by tune)");
    verify
        ->add_option("--case", case_texts_,
                     std::string("COLL:BYTES:hier/SEGMENTS, COLL:BYTES:") + kWholeCommCase +
                         " or COLL:BYTES:any (repeatable)")
        ->required()
        ->allow_extra_args(false);
    return verify;
}

std::vector<VerifyCase> VerifyCli::cases() const {
    std::vector<VerifyCase> cases;
    for (const std::string& text : case_texts_) cases.push_back(parse_verify_case(text));
    return cases;
}

int VerifyCli::run() { return run_verify(prepared_, std::cout, std::cerr); }

}  // namespace hiertune
