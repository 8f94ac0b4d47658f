// `hiertune calibrate` without MPI: the measured pairs, link rates and their
// check, the output formats, the calibration table of the database (schema v4)
// and the upgrade of a version-3 file.
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <sqlite3.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "hiertune/models/calibration.hpp"
#include "hiertune/common/topology.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {
namespace {

namespace fs = std::filesystem;

TEST(Calibration, PairsJoinNodeZeroToEveryLeaderThenIntra) {
    using Pairs = std::vector<LinkPair>;
    // block: nodes {0,1} {2,3}
    EXPECT_EQ(calibration_pairs({0, 0, 2, 2}), (Pairs{{"0-1", 0, 2}, {"intra", 0, 1}}));
    // round-robin: nodes {0,2} {1,3}
    EXPECT_EQ(calibration_pairs({0, 1, 0, 1}), (Pairs{{"0-1", 0, 1}, {"intra", 0, 2}}));
    // one rank per node: no intra pair
    EXPECT_EQ(calibration_pairs({0, 1, 2}), (Pairs{{"0-1", 0, 1}, {"0-2", 0, 2}}));
    // any node ids; nodes numbered by their lowest rank: id 7 {0,2}, id 3 {1,4}, id 5 {3}
    EXPECT_EQ(calibration_pairs({7, 3, 7, 5, 3}), (Pairs{{"0-1", 0, 1}, {"0-2", 0, 3}, {"intra", 0, 2}}));
    // one node: only intra
    EXPECT_EQ(calibration_pairs({4, 4}), (Pairs{{"intra", 0, 1}}));
    EXPECT_TRUE(calibration_pairs({0}).empty());
    EXPECT_THROW(calibration_pairs({}), std::invalid_argument);
}

TEST(Calibration, RatesInBytesPerSecond) {
    EXPECT_DOUBLE_EQ(parse_rate("12500000", "--expect-rate"), 12500000);
    EXPECT_DOUBLE_EQ(parse_rate("100mbit", "--expect-rate"), 12500000);  // 10^8 bits / 8
    EXPECT_DOUBLE_EQ(parse_rate("100MBIT", "--expect-rate"), 12500000);
    EXPECT_DOUBLE_EQ(parse_rate("1gbit", "--expect-rate"), 125000000);
    EXPECT_DOUBLE_EQ(parse_rate("8kbit", "--expect-rate"), 1000);
    EXPECT_DOUBLE_EQ(parse_rate("12.5M", "--expect-rate"), 12500000);  // powers of 1000, not 1024
    EXPECT_DOUBLE_EQ(parse_rate("2k", "--expect-rate"), 2000);
    EXPECT_DOUBLE_EQ(parse_rate("1G", "--expect-rate"), 1e9);
    EXPECT_DOUBLE_EQ(parse_rate("1", "--expect-rate"), 1);
    EXPECT_DOUBLE_EQ(parse_rate(".5K", "--expect-rate"), 500);
    for (const char* bad : {"", "-5", "+5", " 5", "0", "0.0M", "abc", "5X", "5 M", "mbit", "5mbits", "1e999"})
        EXPECT_THROW(parse_rate(bad, "--expect-rate"), UsageError) << bad;
    try {
        parse_rate("fast", "HIERTUNE_LINK_RATE");
        FAIL() << "no error";
    } catch (const UsageError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("HIERTUNE_LINK_RATE 'fast': ", 0), 0u) << e.what();
    }
}

std::vector<LinkCalibration> links() {
    return {LinkCalibration{"0-1", 45.2e-6, 11.5e6, 100, 12}, LinkCalibration{"0-2", 50e-6, 15e6, 90, 10},
            LinkCalibration{"intra", 0.8e-6, 5e9, 1000, 50}};
}

TEST(Calibration, RateCheckOfInterNodeLinks) {
    // 12.5 MB/s expected: 0-1 is 8 % slow, 0-2 20 % fast; intra gets no verdict
    const std::vector<RateVerdict> verdicts = check_rates(links(), 12.5e6, 10);
    ASSERT_EQ(verdicts.size(), 2u);
    EXPECT_EQ(verdicts[0].link, "0-1");
    EXPECT_NEAR(verdicts[0].off_percent, -8.0, 1e-9);
    EXPECT_TRUE(verdicts[0].holds);
    EXPECT_EQ(verdicts[1].link, "0-2");
    EXPECT_NEAR(verdicts[1].off_percent, 20.0, 1e-9);
    EXPECT_FALSE(verdicts[1].holds);
    EXPECT_FALSE(all_hold(verdicts));
    EXPECT_EQ(verdict_line(verdicts[0]),
              "0-1: rate holds (11.50 MB/s measured, 12500000 B/s expected: -8.0 %, tolerance 10 %)");
    EXPECT_EQ(verdict_line(verdicts[1]),
              "0-2: rate off by +20.0 % (15.00 MB/s measured, 12500000 B/s expected, tolerance 10 %)");
    EXPECT_TRUE(all_hold(check_rates(links(), 12.5e6, 20)));  // +20 % is within 20 %
    EXPECT_FALSE(all_hold(check_rates(links(), 12.5e6, 7.9)));  // -8 % is not within 7.9 %
    // 1 B/s: no link is near it
    const std::vector<RateVerdict> absurd = check_rates(links(), 1, 10);
    EXPECT_FALSE(absurd[0].holds);
    EXPECT_EQ(verdict_line(absurd[0]).rfind("0-1: rate off by +1149999900.0 % (11.50 MB/s measured, 1 B/s expected", 0),
              0u)
        << verdict_line(absurd[0]);
    EXPECT_THROW(check_rates(links(), 0, 10), std::invalid_argument);
    EXPECT_THROW(check_rates(links(), 1e6, -1), std::invalid_argument);
    EXPECT_TRUE(all_hold(check_rates({LinkCalibration{"intra", 1e-6, 1e9, 1, 1}}, 1, 10)));  // nothing to check
}

TEST(Calibration, Table) {
    const std::string table = calibration_table(links());
    std::istringstream lines(table);
    std::string header, first, second, third, extra;
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    std::getline(lines, third);
    EXPECT_FALSE(std::getline(lines, extra));
    EXPECT_EQ(header, "link        latency(us)   bandwidth(MB/s)          reps");
    EXPECT_EQ(first, "0-1               45.20             11.50        100/12");
    EXPECT_EQ(third, "intra              0.80           5000.00       1000/50");
    EXPECT_EQ(cluster_line(""), "cluster: unknown");
    EXPECT_EQ(cluster_line("emucluster: 2 nodes"), "cluster: emucluster: 2 nodes");
    const StoredCalibration stored{links(), "", "2024-05-01T10:00:00Z"};
    EXPECT_EQ(calibration_report(stored), "cluster: unknown\n" + table);
    EXPECT_EQ(calibration_report(StoredCalibration{}), "cluster: unknown\ncalibration: none\n");
}

TEST(Calibration, JsonCsvAndText) {
    const JobDescription job{"emucluster-100mbit", 4, 2, 2, "block", "MPICH 4.0.2"};
    CalibrationRun run{links(), "emucluster: 2 nodes", false, "", 3, &job, {}};
    std::ostringstream json;
    write_calibration(run, OutputFormat::json, json);
    std::istringstream json_lines(json.str());
    std::string line;
    std::vector<nlohmann::json> objects;
    while (std::getline(json_lines, line)) objects.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(objects.size(), 3u);
    EXPECT_EQ(objects[0]["link"], "0-1");
    EXPECT_DOUBLE_EQ(objects[0]["latency_us"].get<double>(), 45.2);
    EXPECT_DOUBLE_EQ(objects[0]["bandwidth_MBps"].get<double>(), 11.5);
    EXPECT_EQ(objects[0]["n_latency"], 100);
    EXPECT_EQ(objects[0]["n_bandwidth"], 12);
    EXPECT_EQ(objects[0]["source"], "measured");
    EXPECT_EQ(objects[0]["cluster"], "emucluster: 2 nodes");
    EXPECT_EQ(objects[0]["job"], 3);
    EXPECT_EQ(objects[0]["machine"], "emucluster-100mbit");
    EXPECT_EQ(objects[2]["nodes"], 2);

    std::ostringstream csv;
    write_calibration(run, OutputFormat::csv, csv);
    EXPECT_EQ(csv.str(),
              "link,latency_us,bandwidth_MBps,n_latency,n_bandwidth,source\n"
              "0-1,45.200,11.500,100,12,measured\n"
              "0-2,50.000,15.000,90,10,measured\n"
              "intra,0.800,5000.000,1000,50,measured\n");

    run.from_db = true;
    run.measured_at = "2024-05-01T10:00:00Z";
    std::ostringstream text;
    write_calibration(run, OutputFormat::osu, text);
    EXPECT_EQ(text.str(),
              "# hiertune calibrate: emucluster-100mbit, 4 ranks, 2 nodes x 2 ppn, block\n"
              "# cluster: emucluster: 2 nodes\n"
              "# stored in the database (job 3), measured 2024-05-01T10:00:00Z\n" +
                  calibration_table(links()) +
                  "# by_size crossovers: MPIR_CVAR_HIER_LATENCY_BYTES=635 (alpha/beta of the inter-node links)\n");
}

// 0-1: 45.2 us x 11.5 MB/s = 519.8 B, 0-2: 50 us x 15 MB/s = 750 B; intra is no link
TEST(Calibration, LatencyBytesIsTheMedianAlphaOverBetaOfTheInterNodeLinks) {
    EXPECT_EQ(latency_bytes(links()), 635);  // (519.8 + 750) / 2
    std::vector<LinkCalibration> odd = links();
    odd.push_back({"0-3", 100e-6, 1e6, 1, 1});  // 100 B
    EXPECT_EQ(latency_bytes(odd), 520);
    EXPECT_EQ(latency_bytes({{kIntraLink, 1e-6, 1e9, 1, 1}}), 0);
    EXPECT_EQ(latency_bytes({}), 0);
    EXPECT_EQ(latency_bytes({{"0-1", 1e-9, 1e3, 1, 1}}), 1);  // never 0: 0 is the CVAR's "unset"
    EXPECT_EQ(latency_bytes_line({}), "");
}

TEST(Calibration, SummaryLineForDbList) {
    const StoredCalibration stored{{LinkCalibration{"0-1", 45.2e-6, 11.5e6, 100, 12},
                                    LinkCalibration{"intra", 0.8e-6, 5e9, 1000, 50}},
                                   "emucluster: 2 nodes",
                                   "2024-05-01T10:00:00Z"};
    EXPECT_EQ(calibration_summary(stored),
              "calibration: 0-1 45.20 us 11.50 MB/s, intra 0.80 us 5000.00 MB/s; cluster: emucluster: 2 nodes; "
              "measured 2024-05-01T10:00:00Z");
    EXPECT_EQ(calibration_summary(StoredCalibration{}), "calibration: none");
}

TEST(Calibration, JobFromJsonOutputAmidOtherLines) {
    std::istringstream output(
        "emucluster: 2 nodes up\n"
        "{\"link\":\"0-1\",\"source\":\"db\",\"job\":3,\"machine\":\"emucluster-100mbit\"}\n"
        "not json {\n"
        "{\"link\":\"intra\",\"source\":\"measured\",\"job\":3,\"machine\":\"emucluster-100mbit\"}\n");
    const std::optional<CalibratedJob> job = calibrated_job(output);
    ASSERT_TRUE(job);
    EXPECT_EQ(job->job, 3);
    EXPECT_EQ(job->machine, "emucluster-100mbit");
    EXPECT_TRUE(job->measured);
    std::istringstream stored("{\"link\":\"0-1\",\"source\":\"db\",\"job\":1,\"machine\":\"box\"}\n");
    ASSERT_TRUE(calibrated_job(stored));
    std::istringstream stored_again("{\"link\":\"0-1\",\"source\":\"db\",\"job\":1,\"machine\":\"box\"}\n");
    EXPECT_FALSE(calibrated_job(stored_again)->measured);
    std::istringstream no_job("{\"link\":\"0-1\",\"source\":\"measured\"}\n[1,2]\n{\"job\":\"x\",\"machine\":\"m\"}\n");
    EXPECT_FALSE(calibrated_job(no_job));
    std::istringstream empty("");
    EXPECT_FALSE(calibrated_job(empty));
}

// The hosts whose ranks outnumber their cores go into every JSON line
TEST(Calibration, SharedCoresInTheJsonOutput) {
    CalibrationRun run;
    run.links = {LinkCalibration{"0-1", 45.2e-6, 11.5e6, 100, 12}};
    run.job = 3;
    const JobDescription job{"box", 8, 4, 2, "block", "b"};
    run.job_description = &job;
    EXPECT_FALSE(calibration_json(run.links[0], run).contains("shared_cores"));
    run.shared_cores = {to_string(HostLoad{"n0, n1, n2, n3", 8, 2})};
    EXPECT_EQ(run.shared_cores[0], "n0, n1, n2, n3: 8 ranks on 2 cores");
    EXPECT_EQ(calibration_json(run.links[0], run).at("shared_cores").dump(), R"(["n0, n1, n2, n3: 8 ranks on 2 cores"])");
}

// ---- the calibration table of the measurement database

class CalibrationDbTest : public test::TempDirTest {
protected:
    std::string sql_value(const std::string& query) {
        sqlite3* db = nullptr;
        sqlite3_open(path_.c_str(), &db);
        std::string value;
        sqlite3_exec(
            db, query.c_str(),
            [](void* out, int, char** values, char**) {
                *static_cast<std::string*>(out) = values[0] ? values[0] : "NULL";
                return 0;
            },
            &value, nullptr);
        sqlite3_close(db);
        return value;
    }
    int sql(const std::string& text) {
        sqlite3* db = nullptr;
        sqlite3_open(path_.c_str(), &db);
        const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, nullptr);
        sqlite3_close(db);
        return rc;
    }

};

JobDescription job_description(int ranks = 4) { return JobDescription{"emucluster-100mbit", ranks, 2, 2, "block", "b"}; }

TEST_F(CalibrationDbTest, StoredInMeasuringOrderAndReplacedByARerun) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    const JobId other = db.find_or_create_job(job_description(8));
    EXPECT_TRUE(db.calibration(job).links.empty());

    // "0-10" after "0-2": the order measured, not the names' order
    const std::vector<LinkCalibration> first{{"0-1", 4e-5, 1.2e7, 100, 12},
                                             {"0-2", 5e-5, 1.1e7, 90, 11},
                                             {"0-10", 6e-5, 1.0e7, 80, 10},
                                             {"intra", 1e-6, 5e9, 1000, 50}};
    db.record_calibration(job, first, "emucluster: 11 nodes");
    db.record_calibration(other, {{"0-1", 1e-5, 1e9, 10, 10}}, "");
    const StoredCalibration stored = db.calibration(job);
    EXPECT_EQ(stored.links, first);
    EXPECT_EQ(stored.cluster, "emucluster: 11 nodes");
    EXPECT_EQ(stored.measured_at.size(), 20u);  // 2024-05-01T10:00:00Z
    EXPECT_EQ(sql_value("SELECT bandwidth FROM calibration WHERE job_id = 1 AND link = '0-2'"), "11000000.0");
    EXPECT_EQ(sql_value("SELECT latency FROM calibration WHERE job_id = 1 AND link = 'intra'"), "1.0e-06");

    // a rerun replaces the job's rows, and only the job's
    const std::vector<LinkCalibration> second{{"0-1", 3e-5, 1.25e7, 50, 6}, {"intra", 2e-6, 4e9, 500, 20}};
    db.record_calibration(job, second, "");
    EXPECT_EQ(db.calibration(job).links, second);
    EXPECT_EQ(db.calibration(job).cluster, "");
    EXPECT_EQ(sql_value("SELECT count(*) FROM calibration WHERE job_id = 1"), "2");
    EXPECT_EQ(db.calibration(other).links, (std::vector<LinkCalibration>{{"0-1", 1e-5, 1e9, 10, 10}}));
}

TEST_F(CalibrationDbTest, InvalidCalibrationsWriteNothing) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    const std::vector<LinkCalibration> good{{"0-1", 4e-5, 1.2e7, 100, 12}};
    db.record_calibration(job, good, "c");
    const std::vector<std::vector<LinkCalibration>> bad{
        {},
        {{"", 4e-5, 1.2e7, 1, 1}},
        {{"0-1", 4e-5, 1.2e7, 1, 1}, {"0-1", 4e-5, 1.2e7, 1, 1}},
        {{"0-1", -1e-6, 1.2e7, 1, 1}},
        {{"0-1", std::nan(""), 1.2e7, 1, 1}},
        {{"0-1", 4e-5, 0, 1, 1}},
        {{"0-1", 4e-5, INFINITY, 1, 1}},
        {{"0-1", 4e-5, 1.2e7, 0, 1}},
        {{"0-1", 4e-5, 1.2e7, 1, 0}},
    };
    for (const auto& links : bad) EXPECT_THROW(db.record_calibration(job, links, "x"), std::invalid_argument);
    EXPECT_THROW(db.record_calibration(job + 99, good, "x"), std::invalid_argument);
    EXPECT_EQ(db.calibration(job).links, good);  // the stored calibration is untouched
    EXPECT_EQ(db.calibration(job).cluster, "c");
}

// A version-3 file (no calibration table) is upgraded in place when opened.
TEST_F(CalibrationDbTest, VersionThreeFileIsUpgraded) {
    {
        MeasureDb db = MeasureDb::open(path_);
        const JobId job = db.find_or_create_job(job_description());
        Summary s;
        s.n = 3;
        s.median = s.ci_lo = s.ci_hi = s.min = s.max = s.mean = 1e-5;
        db.record_point(job, PointKey{"bcast", 8, "binomial", {}}, s);
        db.add_step_time(job, "tasks", 2.0);
    }
    ASSERT_EQ(sql("DROP TABLE calibration; PRAGMA user_version=3;"), SQLITE_OK);
    ASSERT_EQ(sql_value("SELECT count(*) FROM sqlite_master WHERE name = 'calibration'"), "0");

    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(sql_value("PRAGMA user_version"), std::to_string(MeasureDb::kSchemaVersion));
    const auto job = db.find_job(job_description());
    ASSERT_TRUE(job);
    EXPECT_EQ(db.count_points(job->id), 1u);
    EXPECT_EQ(db.step_times(job->id).at("tasks"), 2.0);
    db.record_calibration(job->id, {{"0-1", 4e-5, 1.2e7, 100, 12}}, "");
    EXPECT_EQ(db.calibration(job->id).links.size(), 1u);
    EXPECT_EQ(db.integrity_check(), "ok");
}

}  // namespace
}  // namespace hiertune
