#include "hiertune/report/overlap_report.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace hiertune {
namespace {

// Two cells of iallreduce and one of isend, as `hiertune overlap --json`
// writes them (verdict lines included: the reader skips them).
std::string run_json(const std::string& async_progress, double ratio) {
    OverlapSettings settings;
    settings.ranks = 2;
    settings.ranks_per_node = 1;
    settings.threads = 1;
    settings.async_progress = async_progress;
    settings.thread_level = async_progress == "1" ? "multiple" : "single";
    settings.reps = 5;
    const std::string r = std::to_string(ratio);
    return overlap_settings_json(settings) + "\n" +
           R"({"operation":"iallreduce","algorithm":"default","params":{},"size":1024,"comp_us":10.0,)"
           R"("t_comm_us":50.0,"t_comp_us":10.0,"t_measured_us":55.0,"ratio":)" + r + "}\n" +
           R"({"operation":"iallreduce","algorithm":"default","params":{},"size":2048,"comp_us":10.0,)"
           R"("t_comm_us":500.0,"t_comp_us":10.0,"t_measured_us":505.0,"ratio":0.5})" "\n" +
           R"({"verdict":"partially","operation":"iallreduce","algorithm":"default","params":{},"cells":2})" "\n" +
           R"({"operation":"isend","algorithm":"default","params":{"MPIR_CVAR_X":"4"},"size":1024,)"
           R"("comp_us":46.4,"t_comm_us":40.0,"t_comp_us":46.4,"t_measured_us":50.0,"ratio":0.09})" "\n";
}

OverlapRun read(const std::string& text, const std::string& source = "run.json") {
    std::istringstream in(text);
    return read_overlap_run(in, source);
}

std::string error_of(const std::string& text) {
    try {
        read(text);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

TEST(OverlapReport, ReadsSettingsAndCellsPerConfiguration) {
    const OverlapRun run = read(run_json("1", 0.25));
    EXPECT_EQ(run.settings.ranks, 2);
    EXPECT_EQ(run.settings.async_progress, "1");
    EXPECT_EQ(run.settings.thread_level, "multiple");
    EXPECT_EQ(run.settings.reps, 5u);
    ASSERT_EQ(run.series.size(), 2u);
    EXPECT_EQ(run.series[0].operation, "iallreduce");
    ASSERT_EQ(run.series[0].cells.size(), 2u);
    EXPECT_EQ(run.series[0].cells[1].bytes, 2048u);
    EXPECT_DOUBLE_EQ(run.series[0].cells[0].ratio, 0.25);
    EXPECT_EQ(run.series[1].params, (Params{{"MPIR_CVAR_X", "4"}}));
    EXPECT_DOUBLE_EQ(run.series[1].cells[0].comp_us, 46.4);
}

TEST(OverlapReport, RejectsWhatIsNotOverlapOutputNamingTheLine) {
    EXPECT_NE(error_of("").find("no settings object"), std::string::npos);
    EXPECT_NE(error_of("{\"operation\":\"isend\"}\n").find("run.json:1: "), std::string::npos);
    const std::string settings = run_json("0", 0).substr(0, run_json("0", 0).find('\n') + 1);
    EXPECT_NE(error_of(settings).find("no cell"), std::string::npos);
    EXPECT_NE(error_of(settings + "\nnot json\n").find("run.json:3: not a line"), std::string::npos);
    EXPECT_NE(error_of(settings + R"({"operation":"isend","algorithm":"default","params":{}})")
                  .find("run.json:2: "),
              std::string::npos);  // a cell without size and times
}

TEST(OverlapReport, LabelsSayWhatTheRunMeasuredUnder) {
    const OverlapRun run = read(run_json("1", 0.25));
    EXPECT_EQ(settings_label(run.settings), "ASYNC_PROGRESS=1, 1 thread, 2 ranks (1 per node)");
    EXPECT_EQ(series_label(run.series[1]), "isend (default MPIR_CVAR_X=4)");
    EXPECT_EQ(heatmap_file_name(run.series[0]), "overlap-iallreduce-default.png");
    EXPECT_EQ(heatmap_file_name(run.series[1]), "overlap-isend-default-x-4.png");
    OverlapSeries odd{"ibcast", "tsp/tree", {{"MPIR_CVAR_A B", "1"}}, {}};
    EXPECT_EQ(heatmap_file_name(odd), "overlap-ibcast-tsp_tree-a_b-1.png");
}

TEST(OverlapReport, TextShowsEveryRunsTableAndVerdictSideBySide) {
    const std::string text = overlap_report_text({read(run_json("0", 0.95), "plain.json"),
                                                  read(run_json("1", 0.05), "async.json")});
    // one section per configuration, each with both runs
    EXPECT_NE(text.find("## iallreduce (default)"), std::string::npos);
    EXPECT_NE(text.find("## isend (default MPIR_CVAR_X=4)"), std::string::npos);
    EXPECT_NE(text.find("ASYNC_PROGRESS=0, 1 thread, 2 ranks (1 per node) [plain.json]"), std::string::npos);
    EXPECT_NE(text.find("[async.json]"), std::string::npos);
    // 1K row: the ratio; 2K row: t_comp 10 < 10% of t_comm 500, in parentheses
    EXPECT_NE(text.find("1K           0.95"), std::string::npos) << text;
    EXPECT_NE(text.find("2K         (0.50)"), std::string::npos) << text;
    // verdicts from the significant cells: 0.95 none, 0.05 overlaps
    EXPECT_NE(text.find("ASYNC_PROGRESS=0, 1 thread, 2 ranks (1 per node): not at all (median ratio 0.95 over 1 of "
                        "2 cells)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("ASYNC_PROGRESS=1, 1 thread, 2 ranks (1 per node): overlaps (median ratio 0.05"),
              std::string::npos);
}

TEST(OverlapReport, ConfigurationMissingFromARunIsSaid) {
    const OverlapRun full = read(run_json("0", 0.5));
    OverlapRun partial = read(run_json("1", 0.5));
    partial.series.pop_back();  // no isend
    const std::string text = overlap_report_text({full, partial});
    EXPECT_NE(text.find("not measured in this run"), std::string::npos);
    EXPECT_EQ(overlap_series_union({partial, full}).size(), 2u);
}

TEST(OverlapReport, HeatMapHasOnePanelPerRunWithTheCells) {
    const std::vector<OverlapRun> runs{read(run_json("0", 0.95)), read(run_json("1", 0.05))};
    const std::string script = overlap_heatmap_script(runs, runs[0].series[0], "/out/it's.png");
    EXPECT_NE(script.find("set output '/out/it''s.png'"), std::string::npos);
    EXPECT_NE(script.find("set multiplot layout 1,2 title 'iallreduce (default)'"), std::string::npos);
    EXPECT_NE(script.find("set title 'ASYNC_PROGRESS=1, 1 thread, 2 ranks (1 per node)'"), std::string::npos);
    // cells by index: 1K at x 0, 2K at x 1; one computation time, y 0; 4th column significant
    EXPECT_NE(script.find("$cells0 << EOD\n0 0 0.9500 1\n1 0 0.5000 0\nEOD"), std::string::npos) << script;
    EXPECT_NE(script.find("$cells1 << EOD\n0 0 0.0500 1\n"), std::string::npos);
    EXPECT_NE(script.find("set xtics ('1K' 0, '2K' 1)"), std::string::npos);
    EXPECT_NE(script.find("set ytics ('10 us' 0)"), std::string::npos);
    // the significant cells coloured by ratio, the others grey
    EXPECT_NE(script.find("($4 == 1 ? $3 : NaN) with boxxyerror fs solid 1.0 noborder fc palette"), std::string::npos);
    EXPECT_NE(script.find("($4 == 0 ? $1 : NaN):2:(0.5):(0.5) with boxxyerror"), std::string::npos);
    OverlapSeries absent{"ibcast", "default", {}, {}};
    EXPECT_THROW(overlap_heatmap_script(runs, absent, "x.png"), std::invalid_argument);
}

}  // namespace
}  // namespace hiertune
