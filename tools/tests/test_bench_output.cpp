// Output formats, progress line, job description helpers and `hiertune db` queries.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hiertune/report/bench_output.hpp"
#include "hiertune/db/db_commands.hpp"
#include "hiertune/common/topology.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {
namespace {

Summary summary_us(double median_us, std::size_t n = 40, bool converged = true) {
    Summary s;
    s.n = n;
    s.median = median_us * 1e-6;
    s.ci_lo = 0.99 * s.median;
    s.ci_hi = 1.01 * s.median;
    s.min = 0.9 * s.median;
    s.max = 2.0 * s.median;
    s.mean = 1.1 * s.median;
    s.converged = converged;
    return s;
}

PointResult result(std::string algorithm, std::uint64_t bytes, double median_us, Params params = {}) {
    PointResult point;
    point.key = PointKey{"bcast", bytes, std::move(algorithm), std::move(params)};
    point.summary = summary_us(median_us);
    return point;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) result.push_back(line);
    return result;
}

// ---------------------------------------------------------------- OSU

TEST(Osu, ColumnsMatchOsuMicroBenchmarks) {
    EXPECT_EQ(osu_column_header(false), "# Size       Avg Latency(us)");
    EXPECT_EQ(osu_column_header(true),
              "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations");
    EXPECT_EQ(osu_row(result("hier", 8, 12.346), false), "8                      12.35");
    EXPECT_EQ(osu_row(result("hier", 4194304, 5000), true),
              "4194304              5000.00           4500.00          10000.00          40");
    EXPECT_EQ(osu_title("bcast"), "# OSU MPI Broadcast Latency Test (hiertune bench)");
    EXPECT_EQ(osu_title("allreduce"), "# OSU MPI Allreduce Latency Test (hiertune bench)");
    EXPECT_EQ(mpi_function_name("reduce"), "MPI_Reduce");
}

TEST(Osu, NamesEveryCollectiveBenchTimes) {
    const std::vector<std::vector<std::string>> names{
        {"bcast", "MPI_Bcast", "Broadcast"},         {"reduce", "MPI_Reduce", "Reduce"},
        {"allreduce", "MPI_Allreduce", "Allreduce"}, {"allgather", "MPI_Allgather", "Allgather"},
        {"gather", "MPI_Gather", "Gather"},          {"scatter", "MPI_Scatter", "Scatter"},
        {"barrier", "MPI_Barrier", "Barrier"},       {"scan", "MPI_Scan", "Scan"},
        {"exscan", "MPI_Exscan", "Exscan"},          {"iscan", "MPI_Iscan", "Non-blocking Scan"},
        {"iexscan", "MPI_Iexscan", "Non-blocking Exscan"},
        {"reduce_scatter", "MPI_Reduce_scatter", "Reduce_scatter"},
        {"reduce_scatter_block", "MPI_Reduce_scatter_block", "Reduce_scatter_block"},
        {"ireduce_scatter", "MPI_Ireduce_scatter", "Non-blocking Reduce_scatter"},
        {"ireduce_scatter_block", "MPI_Ireduce_scatter_block", "Non-blocking Reduce_scatter_block"},
        {"allgatherv", "MPI_Allgatherv", "Allgatherv"},
        {"iallgatherv", "MPI_Iallgatherv", "Non-blocking Allgatherv"},
        {"alltoall", "MPI_Alltoall", "Alltoall"},
        {"ialltoall", "MPI_Ialltoall", "Non-blocking Alltoall"},
        {"alltoallv", "MPI_Alltoallv", "Alltoallv"},
        {"ialltoallv", "MPI_Ialltoallv", "Non-blocking Alltoallv"},
        {"gatherv", "MPI_Gatherv", "Gatherv"},
        {"igatherv", "MPI_Igatherv", "Non-blocking Gatherv"},
        {"scatterv", "MPI_Scatterv", "Scatterv"},
        {"iscatterv", "MPI_Iscatterv", "Non-blocking Scatterv"}};
    for (const auto& name : names) {
        EXPECT_EQ(mpi_function_name(name[0]), name[1]);
        EXPECT_EQ(osu_title(name[0]), "# OSU MPI " + name[2] + " Latency Test (hiertune bench)");
    }
    EXPECT_EQ(mpi_function_name("alltoallw"), "alltoallw");  // unknown: as given
    EXPECT_EQ(osu_title("alltoallw"), "# OSU MPI alltoallw Latency Test (hiertune bench)");

    std::ostringstream out;
    Reporter reporter(out, OutputFormat::osu, false, nullptr);
    PointResult barrier = result("default", 0, 3.5);
    barrier.key.collective = "barrier";
    reporter.point(barrier);
    EXPECT_EQ(lines(out.str()), (std::vector<std::string>{"# OSU MPI Barrier Latency Test (hiertune bench)",
                                                          "# MPI_Barrier, algorithm: default",
                                                          "# Size       Avg Latency(us)",
                                                          "0                       3.50"}));
}

TEST(Osu, OneHeaderBlockPerConfiguration) {
    std::ostringstream out;
    Reporter reporter(out, OutputFormat::osu, false, nullptr);
    reporter.preamble("4 ranks");
    reporter.point(result("default", 8, 10));
    reporter.point(result("default", 16, 11));
    reporter.point(result("hier", 8, 9, {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", "65536"}}));
    const std::vector<std::string> expected{
        "# 4 ranks",
        "# OSU MPI Broadcast Latency Test (hiertune bench)",
        "# MPI_Bcast, algorithm: default",
        "# Size       Avg Latency(us)",
        "8                      10.00",
        "16                     11.00",
        "",
        "# OSU MPI Broadcast Latency Test (hiertune bench)",
        "# MPI_Bcast, algorithm: hier MPIR_CVAR_BCAST_HIER_SEGSIZE=65536",
        "# Size       Avg Latency(us)",
        "8                       9.00",
    };
    EXPECT_EQ(lines(out.str()), expected);
}

// ---------------------------------------------------------------- JSON / CSV

TEST(Json, OnePointPerLineWithEveryField) {
    std::ostringstream out;
    const JobDescription job{"box", 8, 4, 2, "round-robin", "MPICH"};
    Reporter reporter(out, OutputFormat::json, false, &job);
    PointResult point = result("hier", 65536, 250, {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", "8192"}});
    point.data_ok = true;
    reporter.point(point);
    reporter.point(result("binomial", 8, 3));
    const std::vector<std::string> rows = lines(out.str());
    ASSERT_EQ(rows.size(), 2u);

    const auto first = nlohmann::json::parse(rows[0]);
    EXPECT_EQ(first["collective"], "bcast");
    EXPECT_EQ(first["size"], 65536);
    EXPECT_EQ(first["algorithm"], "hier");
    EXPECT_EQ(first["params"]["MPIR_CVAR_BCAST_HIER_SEGSIZE"], "8192");
    EXPECT_DOUBLE_EQ(first["median_us"].get<double>(), 250);
    EXPECT_DOUBLE_EQ(first["ci_lo_us"].get<double>(), 247.5);
    EXPECT_DOUBLE_EQ(first["ci_hi_us"].get<double>(), 252.5);
    EXPECT_DOUBLE_EQ(first["min_us"].get<double>(), 225);
    EXPECT_DOUBLE_EQ(first["max_us"].get<double>(), 500);
    EXPECT_EQ(first["n"], 40);
    EXPECT_EQ(first["converged"], true);
    EXPECT_EQ(first["source"], "measured");
    EXPECT_EQ(first["data_check"], "passed");
    EXPECT_EQ(first["ranks"], 8);
    EXPECT_EQ(first["placement"], "round-robin");

    const auto second = nlohmann::json::parse(rows[1]);
    EXPECT_TRUE(second["params"].is_object() && second["params"].empty());
    EXPECT_FALSE(second.contains("data_check"));  // -c not given
}

TEST(Csv, HeaderOnceThenRows) {
    std::ostringstream out;
    Reporter reporter(out, OutputFormat::csv, false, nullptr);
    PointResult stored = result("hier", 8, 10, {{"A", "1"}, {"B", "x"}});
    stored.from_db = true;
    reporter.point(stored);
    PointResult failed = result("binomial", 8, 12);
    failed.data_ok = false;
    failed.summary.converged = false;
    reporter.point(failed);
    const std::vector<std::string> rows = lines(out.str());
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], csv_header(false));
    EXPECT_EQ(rows[1], "bcast,8,hier,A=1;B=x,10.000,9.900,10.100,9.000,20.000,11.000,40,1,db,");
    EXPECT_EQ(rows[2], "bcast,8,binomial,,12.000,11.880,12.120,10.800,24.000,13.200,40,0,measured,failed");
    EXPECT_EQ(csv_header(true).rfind("job,collective,", 0), 0u);
}

TEST(Csv, QuotesOnlyWhenNeeded) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(Progress, BarCountAndLabel) {
    EXPECT_EQ(progress_line(0, 4, "bcast hier 8 B", 8), "[........] 0/4  bcast hier 8 B");
    EXPECT_EQ(progress_line(2, 4, "", 8), "[####....] 2/4");
    EXPECT_EQ(progress_line(4, 4, "x", 8), "[########] 4/4  x");
    EXPECT_EQ(progress_line(0, 0, "", 4), "[####] 0/0");
}

TEST(Progress, DrawnAsAskedElseOnlyOnATerminalWithoutRows) {
    for (const bool err_tty : {false, true})
        for (const bool out_tty : {false, true}) {
            EXPECT_TRUE(draw_progress(ProgressMode::always, err_tty, out_tty));
            EXPECT_FALSE(draw_progress(ProgressMode::never, err_tty, out_tty));
        }
    EXPECT_TRUE(draw_progress(ProgressMode::automatic, true, false));
    EXPECT_FALSE(draw_progress(ProgressMode::automatic, true, true));    // rows on the terminal
    EXPECT_FALSE(draw_progress(ProgressMode::automatic, false, false));  // e.g. under mpiexec
    EXPECT_FALSE(draw_progress(ProgressMode::automatic, false, true));
}

// ---------------------------------------------------------------- topology

TEST(Topology, PlacementFromTheNodeOfEachRank) {
    const Layout round_robin = describe_layout({0, 1, 2, 3, 0, 1, 2, 3});  // 4 cliques x 2, MPICH default
    EXPECT_EQ(round_robin.nodes, 4);
    EXPECT_EQ(round_robin.ppn, 2);
    EXPECT_EQ(round_robin.placement, "round-robin");
    const Layout block = describe_layout({0, 0, 2, 2, 4, 4});  // ids are the leaders' ranks
    EXPECT_EQ(block.nodes, 3);
    EXPECT_EQ(block.ppn, 2);
    EXPECT_EQ(block.placement, "block");
    const Layout uneven = describe_layout({0, 1, 2, 0});  // 4 ranks on 3 cliques
    EXPECT_EQ(uneven.ppn, 2);
    EXPECT_EQ(uneven.placement, "round-robin");
    EXPECT_EQ(describe_layout({0, 0, 1, 0}).placement, "irregular");
    EXPECT_EQ(describe_layout({7}).placement, "block");
    EXPECT_THROW(describe_layout({}), std::invalid_argument);
}

TEST(Topology, OversubscriptionCountsRanksPerRealHost) {
    // 8 ranks on one 2-core host, emulated as 4 cliques: still one host
    const std::vector<std::string> hosts(8, "vm"), unknown(8, "");
    const auto loads = oversubscribed_hosts(hosts, unknown, std::vector<int>(8, 2));
    ASSERT_EQ(loads.size(), 1u);
    EXPECT_EQ(loads[0].host, "vm");
    EXPECT_EQ(loads[0].ranks, 8);
    EXPECT_EQ(loads[0].cores, 2);
    EXPECT_TRUE(oversubscribed_hosts({"a", "a", "b", "b"}, {"", "", "", ""}, {2, 2, 2, 2}).empty());
    EXPECT_EQ(oversubscribed_hosts({"a", "a", "a", "b"}, {"", "", "", ""}, {2, 2, 2, 4}).size(), 1u);
    // emulated nodes in network namespaces: their own names, one kernel and its cores
    const auto shared = oversubscribed_hosts({"n0", "n0", "n1", "n1"}, {"k", "k", "k", "k"}, {2, 2, 2, 2});
    ASSERT_EQ(shared.size(), 1u);
    EXPECT_EQ(shared[0].host, "n0, n1");
    EXPECT_EQ(shared[0].ranks, 4);
    // two machines (two kernels) of two ranks each on two cores each: none
    EXPECT_TRUE(oversubscribed_hosts({"n0", "n0", "n1", "n1"}, {"k0", "k0", "k1", "k1"}, {2, 2, 2, 2}).empty());
    EXPECT_THROW(oversubscribed_hosts({"a"}, {}, {2}), std::invalid_argument);
}

TEST(Topology, LibraryVersionOnOneLine) {
    EXPECT_EQ(condense_library_version("MPICH Version:\t4.0.2\nMPICH Device:\tch4:ofi\nMPICH F77:\t  \n\n"),
              "MPICH Version: 4.0.2; MPICH Device: ch4:ofi");
    EXPECT_EQ(condense_library_version("Open MPI v4.1.4, package: Debian"), "Open MPI v4.1.4, package: Debian");
}

// ---------------------------------------------------------------- db queries

class DbQueryTest : public test::TempDirTest {
protected:
    void SetUp() override {
        TempDirTest::SetUp();
        MeasureDb db = MeasureDb::open(path_);
        job_ = db.find_or_create_job(JobDescription{"vm", 8, 4, 2, "round-robin", "MPICH 4.0.2"});
        db.record_point(job_, {"bcast", 8, "binomial", {}}, summary_us(20));
        db.record_point(job_, {"bcast", 8, "hier", {}}, summary_us(30));
        db.record_point(job_, {"bcast", 4194304, "binomial", {}}, summary_us(9000));
        db.record_point(job_, {"bcast", 4194304, "hier", {{"MPIR_CVAR_BCAST_HIER_SEGSIZE", "65536"}}},
                        summary_us(4000));
        db.record_point(job_, {"reduce", 8, "default", {}}, summary_us(25));
    }

    JobId job_ = 0;
};

TEST_F(DbQueryTest, ListShowsJobsAndPointCounts) {
    std::ostringstream out;
    print_jobs(open_existing_db(path_), OutputFormat::osu, out);
    EXPECT_NE(out.str().find("job 1: vm, 8 ranks, 4 nodes x 2 ppn, round-robin, 5 points"), std::string::npos);
    std::ostringstream json;
    print_jobs(open_existing_db(path_), OutputFormat::json, json);
    EXPECT_EQ(nlohmann::json::parse(json.str())["points"], 5);
}

TEST_F(DbQueryTest, ListShowsTheCalibrationInOneLine) {
    {
        MeasureDb db = MeasureDb::open(path_);
        db.record_calibration(job_, {{"0-1", 45.2e-6, 11.5e6, 100, 12}, {"intra", 0.8e-6, 5e9, 1000, 50}},
                              "emucluster: 4 nodes");
        db.find_or_create_job(JobDescription{"vm", 16, 4, 4, "block", "MPICH 4.0.2"});  // job 2: none
    }
    std::ostringstream out;
    print_jobs(open_existing_db(path_), OutputFormat::osu, out);
    const std::vector<std::string> rows = lines(out.str());
    ASSERT_EQ(rows.size(), 7u);  // title, then per job: description, build, calibration
    EXPECT_EQ(rows[3].rfind("    calibration: 0-1 45.20 us 11.50 MB/s, intra 0.80 us 5000.00 MB/s; "
                            "cluster: emucluster: 4 nodes; measured ", 0),
              0u)
        << rows[3];
    EXPECT_EQ(rows[6], "    calibration: none");

    std::ostringstream json;
    print_jobs(open_existing_db(path_), OutputFormat::json, json);
    const std::vector<std::string> objects = lines(json.str());
    ASSERT_EQ(objects.size(), 2u);
    const nlohmann::json first = nlohmann::json::parse(objects[0]);
    EXPECT_EQ(first["calibration"]["cluster"], "emucluster: 4 nodes");
    ASSERT_EQ(first["calibration"]["links"].size(), 2u);
    EXPECT_EQ(first["calibration"]["links"][1]["link"], "intra");
    EXPECT_DOUBLE_EQ(first["calibration"]["links"][0]["bandwidth_MBps"].get<double>(), 11.5);
    EXPECT_TRUE(nlohmann::json::parse(objects[1])["calibration"].is_null());

    std::ostringstream csv;
    print_jobs(open_existing_db(path_), OutputFormat::csv, csv);
    const std::vector<std::string> csv_rows = lines(csv.str());
    ASSERT_EQ(csv_rows.size(), 3u);
    EXPECT_EQ(csv_rows[0], "job,machine,ranks,nodes,ppn,placement,points,created_at,mpich_build,calibration");
    EXPECT_NE(csv_rows[1].find(",\"calibration: 0-1 45.20 us 11.50 MB/s, intra"), std::string::npos) << csv_rows[1];
    EXPECT_EQ(csv_rows[2].substr(csv_rows[2].size() - 18), ",calibration: none");
}

TEST_F(DbQueryTest, BestPerSizeAndCollective) {
    std::ostringstream out;
    DbQuery query;
    query.collectives = {"bcast"};
    print_best(open_existing_db(path_), query, out);
    const std::vector<std::string> rows = lines(out.str());
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[1], "# MPI_Bcast: best configuration per size (lowest median)");
    EXPECT_EQ(rows[3].rfind("8 ", 0), 0u);
    EXPECT_NE(rows[3].find("binomial"), std::string::npos);
    EXPECT_NE(rows[4].find("hier MPIR_CVAR_BCAST_HIER_SEGSIZE=65536"), std::string::npos);

    std::ostringstream csv;
    query.collectives.clear();  // every stored collective
    query.format = OutputFormat::csv;
    print_best(open_existing_db(path_), query, csv);
    EXPECT_EQ(lines(csv.str()).size(), 4u);  // header + 2 bcast sizes + 1 reduce size
}

TEST_F(DbQueryTest, PointsFilteredByJobAndCollective) {
    DbQuery query;
    query.format = OutputFormat::csv;
    query.collectives = {"bcast"};
    query.job = job_;
    std::ostringstream out;
    print_points(open_existing_db(path_), query, out);
    const std::vector<std::string> rows = lines(out.str());
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[1].rfind("1,bcast,8,binomial,", 0), 0u);

    query.job = job_ + 1;
    EXPECT_THROW(print_points(open_existing_db(path_), query, out), UsageError);
}

TEST_F(DbQueryTest, MissingOrForeignFilesAreErrors) {
    EXPECT_THROW(open_existing_db((dir_ / "absent.sqlite").string()), UsageError);
    EXPECT_FALSE(std::filesystem::exists(dir_ / "absent.sqlite"));  // a query never creates one
    std::ofstream((dir_ / "junk").string()) << "not a database, not at all, no";
    EXPECT_THROW(open_existing_db((dir_ / "junk").string()), DbError);
    EXPECT_THROW(open_existing_db(dir_.string()), UsageError);  // a directory
    std::ofstream((dir_ / "empty").string());
    EXPECT_THROW(open_existing_db((dir_ / "empty").string()), UsageError);
    EXPECT_EQ(std::filesystem::file_size(dir_ / "empty"), 0u);  // not made a database
    std::ostringstream out;
    EXPECT_TRUE(print_check(open_existing_db(path_), out));
    EXPECT_NE(out.str().find(": ok"), std::string::npos);
}

}  // namespace
}  // namespace hiertune
