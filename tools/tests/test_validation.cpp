// The validation report of `hiertune tune`: hand-computed slowdowns, averages,
// the targets, missing measurements and the report files; the tree as loaded
// vs no tree (hand-computed ratios, noise and verdicts).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "hiertune/report/validation.hpp"

namespace {

using namespace hiertune;

ConfigTime config(const std::string& name, std::optional<double> predicted, std::optional<double> measured) {
    return ConfigTime{name, predicted, measured};
}

// Two configurations A (10 us measured) and B (12 us measured) at one size.
SizeCase two_configs(std::uint64_t bytes, const std::string& pick, double a = 10e-6, double b = 12e-6) {
    return SizeCase{"bcast", bytes, pick, {config("A", 9e-6, a), config("B", 11e-6, b)}};
}

TEST(Validation, PickIsBestGivesOne) {
    const ValidationReport report = validate({two_configs(1024, "A")}, std::nullopt, std::nullopt);
    ASSERT_EQ(report.verdicts.size(), 1u);
    const SizeVerdict& v = report.verdicts[0];
    EXPECT_EQ(v.pick, "A");
    EXPECT_EQ(v.best, "A");
    EXPECT_DOUBLE_EQ(v.slowdown, 1.0);
    EXPECT_DOUBLE_EQ(v.measured_pick, 10e-6);
    EXPECT_DOUBLE_EQ(*v.predicted_pick, 9e-6);
    EXPECT_DOUBLE_EQ(report.average_slowdown, 1.0);
    EXPECT_DOUBLE_EQ(report.worst_slowdown, 1.0);
    EXPECT_TRUE(report.slowdown_target_met());
}

TEST(Validation, KnownSlowdown) {
    // pick B: 12 us, best A: 10 us -> 1.2
    const ValidationReport report = validate({two_configs(1024, "B")}, std::nullopt, std::nullopt);
    const SizeVerdict& v = report.verdicts[0];
    EXPECT_EQ(v.pick, "B");
    EXPECT_EQ(v.best, "A");
    EXPECT_DOUBLE_EQ(v.measured_best, 10e-6);
    EXPECT_DOUBLE_EQ(v.slowdown, 1.2);
    EXPECT_FALSE(report.slowdown_target_met());
}

TEST(Validation, TiesGoToThePick) {
    const ValidationReport report = validate({two_configs(8, "B", 10e-6, 10e-6)}, std::nullopt, std::nullopt);
    EXPECT_EQ(report.verdicts[0].best, "B");
    EXPECT_DOUBLE_EQ(report.verdicts[0].slowdown, 1.0);
}

TEST(Validation, AverageAndWorst) {
    // slowdowns 1.0, 1.2 (B 12/10), 1.5 (A 15/10) -> average 3.7/3, worst 1.5 at the third
    std::vector<SizeCase> cases{two_configs(8, "A"), two_configs(1024, "B"), two_configs(65536, "A", 15e-6, 10e-6)};
    cases[2].collective = "allreduce";
    const ValidationReport report = validate(cases, 1.0, 10.0);
    ASSERT_EQ(report.verdicts.size(), 3u);
    EXPECT_DOUBLE_EQ(report.verdicts[2].slowdown, 1.5);
    EXPECT_EQ(report.verdicts[2].best, "B");
    EXPECT_NEAR(report.average_slowdown, 3.7 / 3, 1e-12);
    EXPECT_DOUBLE_EQ(report.worst_slowdown, 1.5);
    EXPECT_EQ(report.worst, 2u);
    EXPECT_FALSE(report.slowdown_target_met());
    ASSERT_TRUE(report.task_share());
    EXPECT_DOUBLE_EQ(*report.task_share(), 0.1);
    EXPECT_TRUE(*report.time_target_met());
}

TEST(Validation, TargetsAtTheirLimits) {
    // exactly at the limits: average 5/4 = 1.25 against 1.25, task share 2.5/10 against 0.25
    const ValidationTargets targets{1.25, 0.25, std::nullopt};
    const ValidationReport report = validate({two_configs(8, "B", 4.0, 5.0)}, 2.5, 10.0, targets);
    EXPECT_DOUBLE_EQ(report.average_slowdown, 1.25);
    EXPECT_TRUE(report.slowdown_target_met());
    EXPECT_TRUE(*report.time_target_met());
    const ValidationReport slow = validate({two_configs(8, "A")}, 3.0, 10.0);
    EXPECT_FALSE(*slow.time_target_met());
    const ValidationReport unknown = validate({two_configs(8, "A")}, 3.0, std::nullopt);
    EXPECT_FALSE(unknown.task_share());
    EXPECT_FALSE(unknown.time_target_met());
}

TEST(Validation, MissingMeasurementIsAClearError) {
    SizeCase c = two_configs(4096, "A");
    c.configs[1].measured.reset();
    try {
        validate({c}, std::nullopt, std::nullopt);
        FAIL() << "accepted an unmeasured configuration";
    } catch (const ValidationError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "no measurement of 'B' at bcast 4096 B (1 of 2 configurations unmeasured): "
                  "the exhaustive sweep is incomplete");
    }
    c = two_configs(4096, "A");
    c.configs[0].measured.reset();  // the pick itself
    EXPECT_THROW(validate({c}, std::nullopt, std::nullopt), ValidationError);
}

TEST(Validation, MissingPredictionIsAllowed) {
    SizeCase c = two_configs(4096, "B");
    c.configs[0].predicted.reset();
    const ValidationReport report = validate({c}, std::nullopt, std::nullopt);
    EXPECT_DOUBLE_EQ(report.verdicts[0].slowdown, 1.2);
    std::ostringstream csv;
    write_predictions_csv(report, csv);
    EXPECT_NE(csv.str().find("bcast,4096,A,,10.00,,0,1\n"), std::string::npos) << csv.str();
}

TEST(Validation, BadInputIsRefused) {
    EXPECT_THROW(validate({}, std::nullopt, std::nullopt), ValidationError);
    EXPECT_THROW(validate({two_configs(8, "C")}, std::nullopt, std::nullopt), ValidationError);  // pick not there
    EXPECT_THROW(validate({two_configs(8, "A"), two_configs(8, "B")}, std::nullopt, std::nullopt), ValidationError);
    SizeCase twice = two_configs(8, "A");
    twice.configs.push_back(config("A", std::nullopt, 1e-6));
    EXPECT_THROW(validate({twice}, std::nullopt, std::nullopt), ValidationError);
    SizeCase empty{"bcast", 8, "A", {}};
    EXPECT_THROW(validate({empty}, std::nullopt, std::nullopt), ValidationError);
    EXPECT_THROW(validate({two_configs(8, "A", 0.0)}, std::nullopt, std::nullopt), ValidationError);
    EXPECT_THROW(validate({two_configs(8, "A", std::nan(""))}, std::nullopt, std::nullopt), ValidationError);
    EXPECT_THROW(validate({two_configs(8, "A")}, -1.0, 1.0), ValidationError);
}

// B picked at 12 us, A best at 10 us: a slowdown of 1.2; with 15 % + 10 % of CI
// half-widths it is within the noise, with 5 % + 10 % beyond it.
TEST(Validation, SlowdownAgainstTheNoise) {
    SizeCase noisy = two_configs(8, "B");
    noisy.configs[0].noise = 0.10;
    noisy.configs[1].noise = 0.15;
    SizeCase clear = two_configs(16, "B");
    clear.configs[0].noise = 0.10;
    clear.configs[1].noise = 0.05;
    const ValidationReport report = validate({noisy, clear, two_configs(32, "A")}, std::nullopt, std::nullopt);
    EXPECT_DOUBLE_EQ(*report.verdicts[0].noise, 0.25);
    EXPECT_FALSE(report.verdicts[0].beyond_noise());
    EXPECT_DOUBLE_EQ(*report.verdicts[1].noise, 0.15);
    EXPECT_TRUE(report.verdicts[1].beyond_noise());
    EXPECT_FALSE(report.verdicts[2].noise);  // unknown
    std::ostringstream text;
    write_report_text(report, text);
    EXPECT_NE(text.str().find("   25.0%  B | A"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("beyond the noise (slowdown > 1 + noise, the two medians' 95 % CIs apart): 1 of 3 sizes"),
              std::string::npos)
        << text.str();
}

TEST(Validation, TextAndCsv) {
    std::vector<SizeCase> cases{two_configs(8, "A"), two_configs(1024, "B")};
    const ValidationReport report = validate(cases, 1.0, 8.0);
    std::ostringstream text;
    write_report_text(report, text);
    EXPECT_NE(text.str().find("average slowdown: 1.100 over 2 sizes (target <= 1.050): NOT met"), std::string::npos)
        << text.str();
    EXPECT_NE(text.str().find("worst slowdown: 1.200 (bcast 1024 B)"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("task share 12.5 % (target <= 25 %): met"), std::string::npos) << text.str();

    // without targets (picks made from the measurements): the slowdowns alone
    ValidationReport untargeted = report;
    untargeted.targets_apply = false;
    std::ostringstream plain;
    write_report_text(untargeted, plain);
    EXPECT_NE(plain.str().find("average slowdown: 1.100 over 2 sizes\n"), std::string::npos) << plain.str();
    EXPECT_EQ(plain.str().find("target"), std::string::npos) << plain.str();
    EXPECT_EQ(plain.str().find("task share"), std::string::npos) << plain.str();

    std::ostringstream summary;
    write_summary_csv(report, summary);
    EXPECT_EQ(summary.str(),
              "collective,msg_bytes,pick,predicted_pick_us,measured_pick_us,best,measured_best_us,slowdown\n"
              "bcast,8,A,9.00,10.00,A,10.00,1\n"
              "bcast,1024,B,11.00,12.00,A,10.00,1.2\n");
    std::ostringstream predictions;
    write_predictions_csv(report, predictions);
    EXPECT_EQ(predictions.str(),
              "collective,msg_bytes,config,predicted_us,measured_us,predicted_over_measured,pick,best\n"
              "bcast,8,A,9.00,10.00,0.9,1,1\n"
              "bcast,8,B,11.00,12.00,0.916667,0,0\n"
              "bcast,1024,A,9.00,10.00,0.9,0,1\n"
              "bcast,1024,B,11.00,12.00,0.916667,1,0\n");
}

TEST(Validation, GnuplotScriptNamesItsFiles) {
    const ValidationReport report = validate({two_configs(8, "A")}, std::nullopt, std::nullopt);
    const std::string script = gnuplot_script(report, "/r/predictions.csv", "/r/it's.png");
    EXPECT_NE(script.find("set output '/r/it''s.png'"), std::string::npos) << script;
    EXPECT_NE(script.find("'/r/predictions.csv' skip 1 using (strcol(1) eq 'bcast'"), std::string::npos) << script;
    EXPECT_NE(script.find("unset multiplot"), std::string::npos);
}

// ---- the tree as loaded vs no tree (times in us, per round)

TreeTimingCase rounds(std::uint64_t bytes, std::vector<double> tree_us, std::vector<double> no_tree_us) {
    for (double& t : tree_us) t *= 1e-6;
    for (double& t : no_tree_us) t *= 1e-6;
    return TreeTimingCase{"bcast", bytes, tree_us, no_tree_us};
}

TEST(TreeTiming, FasterTree) {
    // medians 11 and 20; ratio 20/11; noise: tree (12-10)/11, no-tree (21-19)/20 = 0.1
    const TreeTimingReport report = evaluate_tree_timings({rounds(8, {10, 12, 11}, {20, 21, 19})});
    ASSERT_EQ(report.rows.size(), 1u);
    const TreeTimingRow& row = report.rows[0];
    EXPECT_EQ(row.rounds, 3u);
    EXPECT_NEAR(row.tree, 11e-6, 1e-15);
    EXPECT_NEAR(row.no_tree, 20e-6, 1e-15);
    EXPECT_NEAR(row.ratio, 20.0 / 11, 1e-12);
    EXPECT_NEAR(row.noise, 2.0 / 11, 1e-12);
    EXPECT_EQ(row.verdict, TreeVerdict::faster);
    EXPECT_FALSE(report.failed());
}

TEST(TreeTiming, SlowerBeyondTheNoiseFails) {
    // every tree round (12, 12.5, 13) above every no-tree round (10, 10.5, 11);
    // ratio 10.5 / 12.5 = 0.84 < 0.95
    const TreeTimingReport report = evaluate_tree_timings({rounds(8, {12, 13, 12.5}, {10, 11, 10.5})});
    const TreeTimingRow& row = report.rows.at(0);
    EXPECT_NEAR(row.ratio, 0.84, 1e-12);
    EXPECT_NEAR(row.noise, 1.0 / 10.5, 1e-12);  // no-tree 1/10.5 = 0.095 > tree 1/12.5 = 0.08
    EXPECT_EQ(row.verdict, TreeVerdict::slower);
    ASSERT_EQ(report.slower().size(), 1u);
    EXPECT_TRUE(report.failed());
}

TEST(TreeTiming, OverlappingRoundsAreNoise) {
    // median ratio 11 / 12 = 0.917 < 0.95, but a tree round (10) beats a no-tree round (11.5)
    const TreeTimingRow row = evaluate_tree_timings({rounds(8, {12, 13, 10}, {10.5, 11, 11.5})}).rows.at(0);
    EXPECT_NEAR(row.ratio, 11.0 / 12, 1e-12);
    EXPECT_NEAR(row.noise, 3.0 / 12, 1e-12);
    EXPECT_EQ(row.verdict, TreeVerdict::within_noise);
}

TEST(TreeTiming, SeparatedWithinTheToleranceIsNoise) {
    // two rounds: medians are the means, 10.35 and 10.05; ratio 0.971 >= 0.95
    const TreeTimingReport report = evaluate_tree_timings({rounds(8, {10.3, 10.4}, {10.0, 10.1})});
    const TreeTimingRow& row = report.rows.at(0);
    EXPECT_NEAR(row.tree, 10.35e-6, 1e-15);
    EXPECT_NEAR(row.ratio, 10.05 / 10.35, 1e-12);
    EXPECT_EQ(row.verdict, TreeVerdict::within_noise);
    EXPECT_FALSE(report.failed());
    // the same rounds with tolerance 0.02: ratio 0.971 < 0.98, a failure
    EXPECT_EQ(evaluate_tree_timings({rounds(8, {10.3, 10.4}, {10.0, 10.1})}, 0.02).rows.at(0).verdict,
              TreeVerdict::slower);
    // and mirrored, faster only beyond the tolerance too
    EXPECT_EQ(evaluate_tree_timings({rounds(8, {10.0, 10.1}, {10.3, 10.4})}).rows.at(0).verdict,
              TreeVerdict::within_noise);
    EXPECT_EQ(evaluate_tree_timings({rounds(8, {10.0, 10.1}, {10.3, 10.4})}, 0.02).rows.at(0).verdict,
              TreeVerdict::faster);
}

TEST(TreeTiming, AllowSlowerReportsButDoesNotFail) {
    const TreeTimingReport report =
        evaluate_tree_timings({rounds(8, {12, 13}, {10, 11}), rounds(1024, {5, 5}, {5, 5})}, 0.05, true);
    EXPECT_EQ(report.slower().size(), 1u);
    EXPECT_FALSE(report.failed());
    EXPECT_EQ(report.rows[1].verdict, TreeVerdict::within_noise);  // equal rounds: ratio 1, noise 0
    EXPECT_DOUBLE_EQ(report.rows[1].noise, 0.0);
    std::ostringstream text;
    write_tree_timing_text(report, text);
    EXPECT_NE(text.str().find("tree vs no tree: 1 of 2 sizes slower beyond the noise: accepted "
                              "(--allow-tree-slower) (bcast 8 B)"),
              std::string::npos)
        << text.str();
}

TEST(TreeTiming, BadInputIsRefused) {
    EXPECT_THROW(evaluate_tree_timings({}), ValidationError);
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10}, {11})}), ValidationError);          // one round: no noise
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10, 11, 12}, {11, 12})}), ValidationError);  // unequal
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10, 0}, {11, 12})}), ValidationError);
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10, std::nan("")}, {11, 12})}), ValidationError);
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10, 11}, {11, 12}), rounds(8, {10, 11}, {11, 12})}),
                 ValidationError);  // a size twice
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10, 11}, {11, 12})}, 1.0), ValidationError);
    EXPECT_THROW(evaluate_tree_timings({rounds(8, {10, 11}, {11, 12})}, -0.1), ValidationError);
}

TEST(TreeTiming, TextAndCsv) {
    const TreeTimingReport report =
        evaluate_tree_timings({rounds(8, {10, 12, 11}, {20, 21, 19}), rounds(1024, {12, 13, 12.5}, {10, 11, 10.5})});
    std::ostringstream text;
    write_tree_timing_text(report, text);
    const std::string t = text.str();
    EXPECT_EQ(t.rfind("# hiertune: the tree as loaded vs no tree (times in us)\n", 0), 0u) << t;
    EXPECT_NE(t.find("# FAIL (slower): every round with the tree slower than every round without it AND ratio < 1 - "
                     "0.050;"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("collective      size  rounds        tree     no-tree    ratio    noise  verdict\n"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("bcast              8       3       11.00       20.00    1.818    18.2%  faster\n"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("bcast           1024       3       12.50       10.50    0.840     9.5%  FAIL (slower)\n"),
              std::string::npos)
        << t;
    EXPECT_NE(t.find("tree vs no tree: 1 of 2 sizes slower beyond the noise: FAILED (bcast 1024 B)\n"),
              std::string::npos)
        << t;
    std::ostringstream csv;
    write_tree_timing_csv(report, csv);
    EXPECT_EQ(csv.str(),
              "collective,msg_bytes,rounds,tree_us,no_tree_us,ratio,noise,verdict,not_counted\n"
              "bcast,8,3,11.00,20.00,1.81818,0.181818,faster,\n"
              "bcast,1024,3,12.50,10.50,0.84,0.0952381,slower,\n");
}

}  // namespace
