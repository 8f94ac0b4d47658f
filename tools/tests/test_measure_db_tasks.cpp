// Task benchmarks in the measurement database (schema v2): storage, resume,
// atomicity under SIGKILL, upgrade of a version-1 file; tune's tree timings
// (schema v5) and the upgrade of a version-4 file.
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "hiertune/db/measure_db.hpp"

namespace hiertune {
namespace {

namespace fs = std::filesystem;

class TaskDbTest : public test::TempDirTest {};

JobDescription job_description() {
    return JobDescription{"testbox", 8, 4, 2, "block", "4.0.2 ch4:ofi fast"};
}

Summary summary(double median) {
    Summary s;
    s.n = 30;
    s.median = median;
    s.ci_lo = 0.95 * median;
    s.ci_hi = 1.05 * median;
    s.min = 0.9 * median;
    s.max = 2 * median;
    s.mean = 1.1 * median;
    s.converged = true;
    return s;
}

TaskKey task(const std::string& name, std::uint64_t seg, const std::string& inter = "tsp_kary") {
    return TaskKey{"bcast", name, Params{{"inter_algo", inter}, {"intra_algo", "shm"}}, seg};
}

// The test job, and one that differs from it in its ranks only.
std::pair<JobId, JobId> two_jobs(MeasureDb& db) {
    JobDescription other_description = job_description();
    other_description.ranks = 16;
    const JobId job = db.find_or_create_job(job_description());
    return {job, db.find_or_create_job(other_description)};
}

std::vector<TaskTiming> leaders(double base, int count) {
    std::vector<TaskTiming> timings;
    for (int leader = 0; leader < count; ++leader) timings.push_back({leader, summary(base + leader)});
    return timings;
}

int sql(const std::string& path, const std::string& text) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return -1;
    const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return rc;
}

std::string sql_value(const std::string& path, const std::string& query) {
    sqlite3* db = nullptr;
    std::string result;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
        result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return result;
}

TEST_F(TaskDbTest, PerLeaderAndMaxTimingsRoundTrip) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    EXPECT_TRUE(db.record_task(job, task("sbib", 65536), leaders(1e-3, 4)));
    EXPECT_TRUE(db.record_task(job, task("ib", 65536), {{kMaxOverLeaders, summary(2e-3)}}));
    EXPECT_TRUE(db.has_task(job, task("ib", 65536)));
    EXPECT_FALSE(db.has_task(job, task("ib", 4096)));
    EXPECT_EQ(db.count_tasks(job), 2u);

    const std::vector<StoredTask> stored = db.tasks(job);
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(stored[0].key, task("ib", 65536));  // ordered by task name
    ASSERT_EQ(stored[0].timings.size(), 1u);
    EXPECT_EQ(stored[0].timings[0].leader, kMaxOverLeaders);
    EXPECT_EQ(stored[0].timings[0].summary.median, 2e-3);
    EXPECT_EQ(stored[1].key, task("sbib", 65536));
    ASSERT_EQ(stored[1].timings.size(), 4u);
    for (int leader = 0; leader < 4; ++leader) {
        EXPECT_EQ(stored[1].timings[leader].leader, leader);
        EXPECT_EQ(stored[1].timings[leader].summary.median, 1e-3 + leader);
        EXPECT_EQ(stored[1].timings[leader].summary.max, 2 * (1e-3 + leader));
    }
    EXPECT_FALSE(stored[1].measured_at.empty());
    EXPECT_EQ(sql_value(path_, "SELECT config FROM tasks LIMIT 1"), "inter_algo=tsp_kary;intra_algo=shm");
}

TEST_F(TaskDbTest, RecordingTheSameTaskTwiceKeepsTheFirst) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    EXPECT_TRUE(db.record_task(job, task("sb", 4096), leaders(1.0, 2)));
    EXPECT_FALSE(db.record_task(job, task("sb", 4096), leaders(5.0, 3)));
    const auto stored = db.tasks(job);
    ASSERT_EQ(stored.size(), 1u);
    ASSERT_EQ(stored[0].timings.size(), 2u);
    EXPECT_EQ(stored[0].timings[0].summary.median, 1.0);
}

TEST_F(TaskDbTest, InvalidTasksAreRejectedAndNothingIsWritten) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    EXPECT_THROW(db.record_task(job, task("sb", 4096), {}), std::invalid_argument);
    EXPECT_THROW(db.record_task(job, task("sb", 0), leaders(1, 1)), std::invalid_argument);
    EXPECT_THROW(db.record_task(job, task("", 4096), leaders(1, 1)), std::invalid_argument);
    EXPECT_THROW(db.record_task(job, TaskKey{"", "sb", {}, 4096}, leaders(1, 1)), std::invalid_argument);
    EXPECT_THROW(db.record_task(job, task("sb", 4096), {{0, summary(1)}, {0, summary(2)}}), std::invalid_argument);
    EXPECT_THROW(db.record_task(job, task("sb", 4096), {{-2, summary(1)}}), std::invalid_argument);
    Summary unordered = summary(1);
    unordered.min = 5;
    EXPECT_THROW(db.record_task(job, task("sb", 4096), {{0, summary(1)}, {1, unordered}}), std::invalid_argument);
    EXPECT_THROW(db.record_task(job + 7, task("sb", 4096), leaders(1, 2)), std::invalid_argument);
    EXPECT_EQ(db.count_tasks(job), 0u);
    EXPECT_EQ(sql_value(path_, "SELECT count(*) FROM tasks"), "0");
}

TEST_F(TaskDbTest, PendingTasksInPlanOrderPerJob) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    JobDescription other_description = job_description();
    other_description.ranks = 16;
    other_description.nodes = 8;
    const JobId other = db.find_or_create_job(other_description);
    const std::vector<TaskKey> plan{task("ib", 4096), task("sbib", 4096), task("sb", 4096),
                                    task("ib", 65536, "tsp_knomial")};
    db.record_task(job, plan[1], leaders(1, 4));
    db.record_task(other, plan[0], leaders(1, 8));
    EXPECT_EQ(db.pending_tasks(job, plan), (std::vector<TaskKey>{plan[0], plan[2], plan[3]}));
    EXPECT_EQ(db.pending_tasks(other, plan), (std::vector<TaskKey>{plan[1], plan[2], plan[3]}));
}

// A version-1 file (points only) is upgraded in place when opened.
TEST_F(TaskDbTest, VersionOneFileIsUpgraded) {
    ASSERT_EQ(sql(path_, R"sql(
        PRAGMA journal_mode=WAL;
        CREATE TABLE jobs (id INTEGER PRIMARY KEY, machine TEXT NOT NULL, ranks INTEGER NOT NULL,
            nodes INTEGER NOT NULL, ppn INTEGER NOT NULL, placement TEXT NOT NULL, mpich_build TEXT NOT NULL,
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            UNIQUE (machine, ranks, nodes, ppn, placement, mpich_build));
        CREATE TABLE points (job_id INTEGER NOT NULL REFERENCES jobs(id), collective TEXT NOT NULL,
            msg_bytes INTEGER NOT NULL, algorithm TEXT NOT NULL, params TEXT NOT NULL, n INTEGER NOT NULL,
            median REAL NOT NULL, ci_lo REAL NOT NULL, ci_hi REAL NOT NULL, min REAL NOT NULL,
            max REAL NOT NULL, mean REAL NOT NULL, converged INTEGER NOT NULL,
            measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
            PRIMARY KEY (job_id, collective, msg_bytes, algorithm, params));
        INSERT INTO jobs (machine, ranks, nodes, ppn, placement, mpich_build)
            VALUES ('testbox', 8, 4, 2, 'block', '4.0.2 ch4:ofi fast');
        INSERT INTO points (job_id, collective, msg_bytes, algorithm, params, n, median, ci_lo, ci_hi,
            min, max, mean, converged) VALUES (1, 'bcast', 8, 'binomial', '', 10, 2, 1, 3, 1, 4, 2, 1);
        PRAGMA application_id=1213494626;
        PRAGMA user_version=1;
    )sql"),
              SQLITE_OK);
    ASSERT_EQ(std::to_string(MeasureDb::kApplicationId), "1213494626");
    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(sql_value(path_, "PRAGMA user_version"), std::to_string(MeasureDb::kSchemaVersion));
    const auto job = db.find_job(job_description());
    ASSERT_TRUE(job);
    EXPECT_EQ(db.count_points(job->id), 1u);
    EXPECT_TRUE(db.record_task(job->id, task("ib", 4096), leaders(1, 2)));
    EXPECT_EQ(db.integrity_check(), "ok");
    db.add_step_time(job->id, "tasks", 1.5);  // version 3's table is there too
    db.record_calibration(job->id, {LinkCalibration{"0-1", 5e-5, 1.2e7, 10, 8}}, "");  // and version 4's
    db.record_tree_timings(job->id, "t", {TreeTiming{1, kTreeVariant, "bcast", 8, summary(1e-5)}});  // and 5's
    MeasureDb again = MeasureDb::open(path_);  // a second open finds the current version: nothing to do
    EXPECT_EQ(again.count_tasks(job->id), 1u);
    EXPECT_EQ(again.step_times(job->id).at("tasks"), 1.5);
    EXPECT_EQ(again.calibration(job->id).links.size(), 1u);
    EXPECT_EQ(again.tree_timings(job->id, "t").size(), 1u);
}

// A version-4 file (no tree_timings table) gets it when opened, its data kept.
TEST_F(TaskDbTest, VersionFourFileIsUpgraded) {
    {
        MeasureDb db = MeasureDb::open(path_);
        const JobId job = db.find_or_create_job(job_description());
        db.record_point(job, PointKey{"bcast", 8, "default", {}}, summary(2e-5));
        db.record_calibration(job, {LinkCalibration{"0-1", 5e-5, 1.2e7, 10, 8}}, "c");
    }
    ASSERT_EQ(sql(path_, "DROP TABLE tree_timings; PRAGMA user_version=4;"), SQLITE_OK);
    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(sql_value(path_, "PRAGMA user_version"), std::to_string(MeasureDb::kSchemaVersion));
    const auto job = db.find_job(job_description());
    ASSERT_TRUE(job);
    EXPECT_EQ(db.count_points(job->id), 1u);
    EXPECT_EQ(db.calibration(job->id).cluster, "c");
    EXPECT_TRUE(db.tree_timings(job->id, "t").empty());
    db.record_tree_timings(job->id, "t", {TreeTiming{1, kNoTreeVariant, "bcast", 8, summary(1e-5)}});
    EXPECT_EQ(db.tree_timings(job->id, "t").size(), 1u);
    EXPECT_EQ(db.integrity_check(), "ok");
}

// A version-7 file (no shared_cores table) gets it when opened, its data kept.
TEST_F(TaskDbTest, VersionSevenFileIsUpgraded) {
    {
        MeasureDb db = MeasureDb::open(path_);
        db.record_point(db.find_or_create_job(job_description()), PointKey{"bcast", 8, "default", {}}, summary(2e-5));
    }
    ASSERT_EQ(sql(path_, "DROP TABLE shared_cores; PRAGMA user_version=7;"), SQLITE_OK);
    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(sql_value(path_, "PRAGMA user_version"), std::to_string(MeasureDb::kSchemaVersion));
    const JobId job = db.find_job(job_description())->id;
    EXPECT_EQ(db.count_points(job), 1u);
    EXPECT_TRUE(db.shared_cores(job).empty());
    db.record_shared_cores(job, {HostLoad{"n0, n1", 8, 2}});
    EXPECT_EQ(db.shared_cores(job).size(), 1u);
}

// The hosts whose cores a job's ranks share: per job, the last run's replacing the
// earlier one's (a run on free cores leaves none), in the order given.
TEST_F(TaskDbTest, SharedCoresPerJobLastRunKept) {
    MeasureDb db = MeasureDb::open(path_);
    const auto [job, other] = two_jobs(db);
    db.record_shared_cores(job, {HostLoad{"n2, n3", 4, 2}, HostLoad{"n0, n1", 6, 2}});
    db.record_shared_cores(other, {HostLoad{"m0", 3, 1}});
    std::vector<HostLoad> stored = db.shared_cores(job);
    ASSERT_EQ(stored.size(), 2u);
    EXPECT_EQ(to_string(stored[0]), "n2, n3: 4 ranks on 2 cores");
    EXPECT_EQ(to_string(stored[1]), "n0, n1: 6 ranks on 2 cores");
    db.record_shared_cores(job, {});
    EXPECT_TRUE(db.shared_cores(job).empty());
    EXPECT_EQ(db.shared_cores(other).size(), 1u);
    // refused, and nothing written: a nameless or repeated host, not more ranks than cores
    for (const std::vector<HostLoad>& bad :
         {std::vector<HostLoad>{{"", 4, 2}}, {{"n0", 4, 2}, {"n0", 4, 2}}, {{"n0", 2, 2}}, {{"n0", 4, 0}}})
        EXPECT_THROW(db.record_shared_cores(other, bad), std::invalid_argument);
    EXPECT_EQ(db.shared_cores(other).size(), 1u);
    EXPECT_THROW(db.record_shared_cores(JobId{999}, {}), std::invalid_argument);
}

// Tune's tree timings: per tree digest and job, a rerun of a round's job
// replaces its rows, ordered by collective, size, variant, round.
TEST_F(TaskDbTest, TreeTimingsPerTreeAndJob) {
    MeasureDb db = MeasureDb::open(path_);
    const auto [job, other] = two_jobs(db);
    db.record_tree_timings(job, "aaaa",
                           {TreeTiming{2, kTreeVariant, "bcast", 1024, summary(3e-5)},
                            TreeTiming{1, kTreeVariant, "bcast", 1024, summary(1e-5)},
                            TreeTiming{1, kNoTreeVariant, "bcast", 1024, summary(2e-5)},
                            TreeTiming{1, kTreeVariant, "allreduce", 8, summary(4e-6)}});
    db.record_tree_timings(job, "bbbb", {TreeTiming{1, kTreeVariant, "bcast", 1024, summary(9e-5)}});
    db.record_tree_timings(other, "aaaa", {TreeTiming{1, kTreeVariant, "bcast", 1024, summary(8e-5)}});
    std::vector<TreeTiming> stored = db.tree_timings(job, "aaaa");
    ASSERT_EQ(stored.size(), 4u);
    EXPECT_EQ(stored[0].collective, "allreduce");
    EXPECT_EQ(stored[1].variant, kNoTreeVariant);  // "no-tree" < "tree"
    EXPECT_EQ(stored[2].round, 1);
    EXPECT_EQ(stored[2].variant, kTreeVariant);
    EXPECT_EQ(stored[3].round, 2);
    EXPECT_DOUBLE_EQ(stored[3].summary.median, 3e-5);
    EXPECT_EQ(stored[3].summary.n, 30u);
    EXPECT_DOUBLE_EQ(stored[3].summary.max, 6e-5);
    EXPECT_TRUE(stored[3].summary.converged);
    // a rerun of round 2's tree job replaces its row
    db.record_tree_timings(job, "aaaa", {TreeTiming{2, kTreeVariant, "bcast", 1024, summary(5e-5)}});
    stored = db.tree_timings(job, "aaaa");
    ASSERT_EQ(stored.size(), 4u);
    EXPECT_DOUBLE_EQ(stored[3].summary.median, 5e-5);
    EXPECT_EQ(db.tree_timings(job, "bbbb").size(), 1u);
    EXPECT_DOUBLE_EQ(db.tree_timings(other, "aaaa").at(0).summary.median, 8e-5);
    EXPECT_TRUE(db.tree_timings(job, "cccc").empty());
}

TEST_F(TaskDbTest, InvalidTreeTimingsAreRejectedAndNothingIsWritten) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(job_description());
    const TreeTiming good{1, kTreeVariant, "bcast", 8, summary(1e-5)};
    TreeTiming round0 = good, variant = good, nameless = good, unordered = good;
    round0.round = 0;
    variant.variant = "default";
    nameless.collective = "";
    unordered.summary.min = 1;  // above the median
    for (const TreeTiming& bad : {round0, variant, nameless, unordered})
        EXPECT_THROW(db.record_tree_timings(job, "t", {good, bad}), std::invalid_argument);
    EXPECT_THROW(db.record_tree_timings(job, "", {good}), std::invalid_argument);
    EXPECT_THROW(db.record_tree_timings(job + 99, "t", {good}), std::invalid_argument);
    EXPECT_TRUE(db.tree_timings(job, "t").empty());  // all or nothing
}

TEST(TreeDigest, FnvOfTheBytes) {
    EXPECT_EQ(tree_digest(""), "cbf29ce484222325");  // the FNV-1a 64 offset basis
    EXPECT_EQ(tree_digest("a"), "af63dc4c8601ec8c");  // FNV-1a 64 test vector
    EXPECT_NE(tree_digest("{\"a\": 1}"), tree_digest("{\"a\": 2}"));
}

// Wall times of tune steps: one row per run, summed per step, per job.
TEST_F(TaskDbTest, StepTimesAddUpPerStepAndJob) {
    MeasureDb db = MeasureDb::open(path_);
    const auto [job, other] = two_jobs(db);
    EXPECT_TRUE(db.step_times(job).empty());
    db.add_step_time(job, "tasks", 2.0);
    db.add_step_time(job, "tasks", 0.5);  // a resumed run
    db.add_step_time(job, "bench", 10.0);
    db.add_step_time(other, "bench", 7.0);
    const std::map<std::string, double> times = db.step_times(job);
    EXPECT_EQ(times, (std::map<std::string, double>{{"bench", 10.0}, {"tasks", 2.5}}));
    EXPECT_EQ(db.step_times(other), (std::map<std::string, double>{{"bench", 7.0}}));
    EXPECT_THROW(db.add_step_time(job, "", 1.0), std::invalid_argument);
    EXPECT_THROW(db.add_step_time(job, "tasks", -1.0), std::invalid_argument);
    EXPECT_THROW(db.add_step_time(job, "tasks", std::nan("")), std::invalid_argument);
    EXPECT_THROW(db.add_step_time(job + 99, "tasks", 1.0), std::invalid_argument);
    EXPECT_EQ(db.step_times(job).at("tasks"), 2.5);  // failed calls wrote nothing
}

bool write_all(int fd, const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = write(fd, p, size);
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// A task benchmark is stored with all its leaders or not at all, whenever the writer dies.
TEST_F(TaskDbTest, KilledWriterLeavesWholeTasksAndResumes) {
    constexpr int kLeaders = 6;
    std::vector<TaskKey> plan;
    for (const char* name : {"ib", "sbib", "sb"})
        for (std::uint64_t seg = 1024; seg <= (1u << 20); seg *= 2)
            for (const char* inter : {"tsp_kary", "tsp_knomial", "tsp_ring"}) plan.push_back(task(name, seg, inter));
    JobId job = 0;
    {
        MeasureDb db = MeasureDb::open(path_);
        job = db.find_or_create_job(job_description());
    }
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        close(pipe_fds[0]);
        try {
            MeasureDb db = MeasureDb::open(path_);
            for (std::uint32_t i = 0;; i = (i + 1) % plan.size()) {
                db.record_task(job, plan[i], leaders(i, kLeaders));
                if (!write_all(pipe_fds[1], &i, sizeof i)) _exit(3);
            }
        } catch (...) {
            _exit(4);
        }
    }
    close(pipe_fds[1]);
    std::uint32_t index = 0;
    for (int seen = 0; seen < 15; ++seen) ASSERT_EQ(read(pipe_fds[0], &index, sizeof index), (ssize_t)sizeof index);
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    close(pipe_fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status));

    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(db.integrity_check(), "ok");
    const auto stored = db.tasks(job);
    EXPECT_GE(stored.size(), 15u);
    for (const StoredTask& t : stored) EXPECT_EQ(t.timings.size(), static_cast<std::size_t>(kLeaders));
    const auto pending = db.pending_tasks(job, plan);
    EXPECT_EQ(pending.size() + stored.size(), plan.size());
    for (const TaskKey& key : pending) EXPECT_TRUE(db.record_task(job, key, leaders(0, kLeaders)));
    EXPECT_TRUE(db.pending_tasks(job, plan).empty());
    EXPECT_EQ(sql_value(path_, "SELECT count(*) FROM tasks"), std::to_string(plan.size() * kLeaders));
}

}  // namespace
}  // namespace hiertune
