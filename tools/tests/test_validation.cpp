// The validation report of `hiertune tune`: hand-computed slowdowns, averages,
// the targets, missing measurements and the report files.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "validation.hpp"

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
    const ValidationTargets targets{1.25, 0.25};
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

TEST(Validation, TextAndCsv) {
    std::vector<SizeCase> cases{two_configs(8, "A"), two_configs(1024, "B")};
    const ValidationReport report = validate(cases, 1.0, 8.0);
    std::ostringstream text;
    write_report_text(report, text);
    EXPECT_NE(text.str().find("average slowdown: 1.100 over 2 sizes (target <= 1.050): NOT met"), std::string::npos)
        << text.str();
    EXPECT_NE(text.str().find("worst slowdown: 1.200 (bcast 1024 B)"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("task share 12.5 % (target <= 25 %): met"), std::string::npos) << text.str();

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

}  // namespace
