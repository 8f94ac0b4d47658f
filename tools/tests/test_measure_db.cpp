#include "hiertune/db/measure_db.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hiertune {
namespace {

namespace fs = std::filesystem;

class MeasureDbTest : public test::TempDirTest {};

JobDescription sample_job() {
    JobDescription job;
    job.machine = "testbox";
    job.ranks = 8;
    job.nodes = 4;
    job.ppn = 2;
    job.placement = "block";
    job.mpich_build = "4.0.2 ch4:ofi fast";
    return job;
}

PointKey key(std::string collective, std::uint64_t bytes, std::string algorithm, Params params = {}) {
    return PointKey{std::move(collective), bytes, std::move(algorithm), std::move(params)};
}

// A valid summary whose values all derive from the median.
Summary summary_with_median(double median, std::size_t n = 20, bool converged = true) {
    Summary s;
    s.n = n;
    s.median = median;
    s.ci_lo = 0.9 * median;
    s.ci_hi = 1.1 * median;
    s.min = 0.8 * median;
    s.max = 3.0 * median;
    s.mean = 1.2 * median;
    s.converged = converged;
    return s;
}

void expect_same_summary(const Summary& actual, const Summary& expected) {
    EXPECT_EQ(actual.n, expected.n);
    EXPECT_EQ(actual.median, expected.median);  // REAL round-trips doubles exactly
    EXPECT_EQ(actual.ci_lo, expected.ci_lo);
    EXPECT_EQ(actual.ci_hi, expected.ci_hi);
    EXPECT_EQ(actual.min, expected.min);
    EXPECT_EQ(actual.max, expected.max);
    EXPECT_EQ(actual.mean, expected.mean);
    EXPECT_EQ(actual.converged, expected.converged);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs one SQL statement on the file outside MeasureDb and returns the first column of the first row.
std::string raw_query(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string result;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
        result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return result;
}

// ---------------------------------------------------------------- params

TEST(Params, CanonicalFormIsSortedAndRoundTrips) {
    EXPECT_EQ(canonical_params({}), "");
    const Params params{{"tree", "knomial"}, {"k", "4"}, {"segsize", "65536"}};
    EXPECT_EQ(canonical_params(params), "k=4;segsize=65536;tree=knomial");
    EXPECT_EQ(parse_params("tree=knomial;k=4;segsize=65536"), params);
    EXPECT_EQ(parse_params(""), Params{});
    EXPECT_EQ(parse_params("x="), (Params{{"x", ""}}));
}

TEST(Params, RejectsAmbiguousText) {
    EXPECT_THROW(canonical_params({{"a;b", "1"}}), std::invalid_argument);
    EXPECT_THROW(canonical_params({{"a", "1=2"}}), std::invalid_argument);
    EXPECT_THROW(canonical_params({{"", "1"}}), std::invalid_argument);
    EXPECT_THROW(parse_params("a"), std::invalid_argument);
    EXPECT_THROW(parse_params("a=1;a=2"), std::invalid_argument);
    EXPECT_THROW(parse_params("a=1;"), std::invalid_argument);
}

// ---------------------------------------------------------------- open

TEST_F(MeasureDbTest, CreatesFileAndReopens) {
    {
        MeasureDb db = MeasureDb::open(path_);
        EXPECT_TRUE(fs::exists(path_));
        EXPECT_EQ(db.integrity_check(), "ok");
        EXPECT_TRUE(db.jobs().empty());
        db.find_or_create_job(sample_job());
    }
    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(db.jobs().size(), 1u);
    EXPECT_EQ(raw_query(path_, "PRAGMA journal_mode"), "wal");
    EXPECT_EQ(raw_query(path_, "PRAGMA user_version"), std::to_string(MeasureDb::kSchemaVersion));
    EXPECT_EQ(raw_query(path_, "PRAGMA application_id"), std::to_string(MeasureDb::kApplicationId));
}

TEST_F(MeasureDbTest, EmptyFileIsInitialised) {
    std::ofstream(path_).close();
    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(db.integrity_check(), "ok");
    EXPECT_NO_THROW(db.find_or_create_job(sample_job()));
}

TEST_F(MeasureDbTest, TextFileIsRefusedAndLeftAlone) {
    const std::string text = "this is a text file, not a database\n";
    std::ofstream(path_) << text;
    try {
        MeasureDb::open(path_);
        FAIL() << "opening a text file must throw";
    } catch (const DbError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(path_), std::string::npos) << message;
        EXPECT_NE(message.find("not a database"), std::string::npos) << message;
    }
    EXPECT_EQ(read_text(path_), text);
    EXPECT_FALSE(fs::exists(path_ + "-wal"));
}

TEST_F(MeasureDbTest, ForeignSqliteDatabaseIsRefusedAndLeftAlone) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE other (x INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    try {
        MeasureDb::open(path_);
        FAIL() << "opening another application's database must throw";
    } catch (const DbError& error) {
        EXPECT_NE(std::string(error.what()).find("not a hiertune measurement database"), std::string::npos)
            << error.what();
    }
    EXPECT_EQ(raw_query(path_, "PRAGMA journal_mode"), "delete");  // not converted to WAL
    EXPECT_EQ(raw_query(path_, "SELECT count(*) FROM sqlite_master"), "1");
}

TEST_F(MeasureDbTest, NewerSchemaVersionIsRefused) {
    MeasureDb::open(path_);
    raw_query(path_, "PRAGMA user_version=" + std::to_string(MeasureDb::kSchemaVersion + 1));
    try {
        MeasureDb::open(path_);
        FAIL() << "opening a newer database must throw";
    } catch (const DbError& error) {
        EXPECT_NE(std::string(error.what()).find("newer"), std::string::npos) << error.what();
    }
}

TEST_F(MeasureDbTest, MissingDirectoryThrows) {
    EXPECT_THROW(MeasureDb::open((dir_ / "no" / "such" / "dir.sqlite").string()), DbError);
}

// ---------------------------------------------------------------- jobs

TEST_F(MeasureDbTest, JobIsFoundAgainByIdentity) {
    JobId id = 0;
    {
        MeasureDb db = MeasureDb::open(path_);
        id = db.find_or_create_job(sample_job());
        EXPECT_EQ(db.find_or_create_job(sample_job()), id);
    }
    MeasureDb db = MeasureDb::open(path_);
    EXPECT_EQ(db.find_or_create_job(sample_job()), id);
    const std::optional<Job> job = db.find_job(sample_job());
    ASSERT_TRUE(job);
    EXPECT_EQ(job->id, id);
    EXPECT_EQ(job->description.machine, "testbox");
    EXPECT_EQ(job->description.ranks, 8);
    EXPECT_EQ(job->description.nodes, 4);
    EXPECT_EQ(job->description.ppn, 2);
    EXPECT_EQ(job->description.placement, "block");
    EXPECT_EQ(job->description.mpich_build, "4.0.2 ch4:ofi fast");
    EXPECT_EQ(job->created_at.size(), std::string("2024-01-01T00:00:00Z").size()) << job->created_at;

    JobDescription cyclic = sample_job();
    cyclic.placement = "cyclic";
    EXPECT_FALSE(db.find_job(cyclic));
    EXPECT_NE(db.find_or_create_job(cyclic), id);
    EXPECT_EQ(db.jobs().size(), 2u);
}

TEST_F(MeasureDbTest, InvalidJobIsRejected) {
    MeasureDb db = MeasureDb::open(path_);
    JobDescription job = sample_job();
    job.ppn = 0;
    EXPECT_THROW(db.find_or_create_job(job), std::invalid_argument);
}

// ---------------------------------------------------------------- points

TEST_F(MeasureDbTest, RecordedPointIsFoundWithItsValues) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(sample_job());
    const PointKey point = key("bcast", 65536, "hier_pipelined", {{"segsize", "8192"}, {"intra", "binomial"}});
    EXPECT_FALSE(db.has_point(job, point));
    EXPECT_TRUE(db.record_point(job, point, summary_with_median(1.5e-5, 37, false)));
    EXPECT_TRUE(db.has_point(job, point));
    EXPECT_FALSE(db.has_point(job, key("bcast", 65536, "hier_pipelined", {{"segsize", "4096"}})));
    EXPECT_FALSE(db.has_point(job, key("bcast", 65536, "hier_pipelined")));
    EXPECT_FALSE(db.has_point(job, key("reduce", 65536, "hier_pipelined", point.params)));

    const std::vector<StoredPoint> points = db.points(job);
    ASSERT_EQ(points.size(), 1u);
    EXPECT_EQ(points[0].key, point);
    expect_same_summary(points[0].summary, summary_with_median(1.5e-5, 37, false));
    EXPECT_FALSE(points[0].measured_at.empty());
    EXPECT_EQ(raw_query(path_, "SELECT params FROM points"), "intra=binomial;segsize=8192");
}

TEST_F(MeasureDbTest, RecordingTheSameKeyTwiceKeepsTheFirst) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(sample_job());
    const PointKey point = key("allreduce", 8, "recursive_doubling", {{"k", "2"}});
    EXPECT_TRUE(db.record_point(job, point, summary_with_median(1.0e-6)));
    EXPECT_FALSE(db.record_point(job, point, summary_with_median(9.0e-6)));
    EXPECT_EQ(db.count_points(job), 1u);
    EXPECT_EQ(db.points(job).at(0).summary.median, 1.0e-6);
}

TEST_F(MeasureDbTest, PointsAreSeparatedByJob) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId first = db.find_or_create_job(sample_job());
    JobDescription other = sample_job();
    other.mpich_build = "4.0.2 debug";
    const JobId second = db.find_or_create_job(other);
    const PointKey point = key("bcast", 1, "binomial");
    EXPECT_TRUE(db.record_point(first, point, summary_with_median(1.0)));
    EXPECT_FALSE(db.has_point(second, point));
    EXPECT_TRUE(db.record_point(second, point, summary_with_median(2.0)));
    EXPECT_EQ(db.count_points(first), 1u);
    EXPECT_EQ(db.count_points(second), 1u);
}

TEST_F(MeasureDbTest, InvalidPointsAreRejected) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(sample_job());
    const PointKey point = key("bcast", 1, "binomial");
    EXPECT_THROW(db.record_point(job + 1000, point, summary_with_median(1.0)), std::invalid_argument);
    Summary unordered = summary_with_median(1.0);
    unordered.ci_lo = 2.0;
    EXPECT_THROW(db.record_point(job, point, unordered), std::invalid_argument);
    Summary empty = summary_with_median(1.0);
    empty.n = 0;
    EXPECT_THROW(db.record_point(job, point, empty), std::invalid_argument);
    EXPECT_THROW(db.record_point(job, key("", 1, "binomial"), summary_with_median(1.0)), std::invalid_argument);
    EXPECT_THROW(db.record_point(job, key("bcast", 1, "binomial", {{"a", "x;y"}}), summary_with_median(1.0)),
                 std::invalid_argument);
    EXPECT_EQ(db.count_points(job), 0u);
}

TEST_F(MeasureDbTest, BestPerSizePicksLowestMedianWithDeterministicTies) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(sample_job());
    JobDescription other_job = sample_job();
    other_job.ranks = 16;
    const JobId other = db.find_or_create_job(other_job);

    // 8 bytes: plain minimum.
    db.record_point(job, key("bcast", 8, "binomial"), summary_with_median(3.0e-6));
    db.record_point(job, key("bcast", 8, "hier", {{"seg", "1"}}), summary_with_median(2.0e-6));
    db.record_point(job, key("bcast", 8, "scatter_allgather"), summary_with_median(2.5e-6));
    // Faster, but another collective or another job: ignored.
    db.record_point(job, key("reduce", 8, "binomial"), summary_with_median(1.0e-9));
    db.record_point(other, key("bcast", 8, "binomial"), summary_with_median(1.0e-9));
    // 1024 bytes: three-way tie on the median, fewest parameters wins.
    db.record_point(job, key("bcast", 1024, "tree", {{"k", "2"}}), summary_with_median(5.0e-6));
    db.record_point(job, key("bcast", 1024, "binomial"), summary_with_median(5.0e-6));
    db.record_point(job, key("bcast", 1024, "alpha", {{"k", "4"}}), summary_with_median(5.0e-6));
    // 65536 bytes: same parameter count, algorithm name then canonical params decide.
    db.record_point(job, key("bcast", 65536, "x", {{"k", "2"}}), summary_with_median(7.0e-5));
    db.record_point(job, key("bcast", 65536, "a", {{"k", "8"}}), summary_with_median(7.0e-5));
    db.record_point(job, key("bcast", 65536, "a", {{"k", "16"}}), summary_with_median(7.0e-5));
    db.record_point(job, key("bcast", 65536, "slow"), summary_with_median(9.0e-5));

    const std::vector<StoredPoint> best = db.best_per_size(job, "bcast");
    ASSERT_EQ(best.size(), 3u);
    EXPECT_EQ(best[0].key, key("bcast", 8, "hier", {{"seg", "1"}}));
    EXPECT_EQ(best[0].summary.median, 2.0e-6);
    EXPECT_EQ(best[1].key, key("bcast", 1024, "binomial"));
    EXPECT_EQ(best[2].key, key("bcast", 65536, "a", {{"k", "16"}}));

    EXPECT_TRUE(db.best_per_size(job, "alltoall").empty());
    const std::vector<StoredPoint> other_best = db.best_per_size(other, "bcast");
    ASSERT_EQ(other_best.size(), 1u);
    EXPECT_EQ(other_best[0].summary.median, 1.0e-9);
}

std::vector<PointKey> make_sweep(std::size_t sizes) {
    std::vector<PointKey> sweep;
    for (const char* collective : {"bcast", "allreduce", "reduce", "allgather"})
        for (std::uint64_t bytes = 1; bytes < (std::uint64_t{1} << sizes); bytes *= 2)
            for (const char* algorithm : {"binomial", "hier", "ring"})
                for (const char* segsize : {"4096", "65536"})
                    sweep.push_back(key(collective, bytes, algorithm, {{"segsize", segsize}}));
    return sweep;
}

TEST_F(MeasureDbTest, PendingReturnsUnmeasuredPointsInSweepOrder) {
    MeasureDb db = MeasureDb::open(path_);
    const JobId job = db.find_or_create_job(sample_job());
    const std::vector<PointKey> sweep = make_sweep(2);  // 4 collectives x 2 sizes x 3 x 2 = 48
    ASSERT_EQ(sweep.size(), 48u);
    EXPECT_EQ(db.pending(job, sweep), sweep);

    const std::set<std::size_t> recorded{0, 3, 4, 17, 47};
    for (std::size_t i : recorded) db.record_point(job, sweep[i], summary_with_median(1.0 + i));
    std::vector<PointKey> expected;
    for (std::size_t i = 0; i < sweep.size(); ++i)
        if (!recorded.count(i)) expected.push_back(sweep[i]);
    EXPECT_EQ(db.pending(job, sweep), expected);

    JobDescription other = sample_job();
    other.nodes = 2;
    other.ppn = 4;
    EXPECT_EQ(db.pending(db.find_or_create_job(other), sweep), sweep);
}

// ---------------------------------------------------------------- crash and resume

Summary summary_for_index(std::size_t index) {
    return summary_with_median(1.0e-6 * static_cast<double>(index + 1), 10 + index % 7, index % 3 != 0);
}

bool write_all(int fd, const void* data, std::size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t written = write(fd, bytes, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        bytes += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

// False at end of file (the writer is gone).
bool read_all(int fd, void* data, std::size_t size) {
    char* bytes = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t got = read(fd, bytes, size);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        bytes += got;
        size -= static_cast<std::size_t>(got);
    }
    return true;
}

// Child process: resumes the sweep, announcing each committed point's sweep
// index on notify_fd, then rewrites existing points (no-ops) until killed.
[[noreturn]] void run_writer(const std::string& path, JobId job, const std::vector<PointKey>& sweep,
                             int notify_fd) {
    try {
        std::map<PointKey, std::uint32_t> index_of;
        for (std::size_t i = 0; i < sweep.size(); ++i) index_of[sweep[i]] = static_cast<std::uint32_t>(i);
        MeasureDb db = MeasureDb::open(path);
        for (const PointKey& point : db.pending(job, sweep)) {
            const std::uint32_t index = index_of.at(point);
            if (!db.record_point(job, point, summary_for_index(index))) _exit(2);
            if (!write_all(notify_fd, &index, sizeof index)) _exit(3);
        }
        for (;;) db.record_point(job, sweep.front(), summary_for_index(0));
    } catch (...) {
        _exit(4);
    }
}

// Kills the child if the test fails before doing so itself.
struct ChildGuard {
    pid_t pid = -1;
    ~ChildGuard() {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
};

TEST_F(MeasureDbTest, KilledWriterLosesNoPointAndResumes) {
    const std::vector<PointKey> sweep = make_sweep(6);  // 4 x 6 x 3 x 2 = 144 points
    std::map<PointKey, std::size_t> index_of;
    for (std::size_t i = 0; i < sweep.size(); ++i) index_of[sweep[i]] = i;
    JobId job = 0;
    {
        MeasureDb db = MeasureDb::open(path_);  // closed before fork: connections must not cross it
        job = db.find_or_create_job(sample_job());
    }

    for (int round = 0; round < 3; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::vector<PointKey> before;
        std::size_t stored_before = 0;
        {
            MeasureDb db = MeasureDb::open(path_);
            before = db.pending(job, sweep);
            stored_before = db.count_points(job);
        }

        int pipe_fds[2];
        ASSERT_EQ(pipe(pipe_fds), 0);
        ChildGuard child;
        child.pid = fork();
        ASSERT_GE(child.pid, 0);
        if (child.pid == 0) {
            close(pipe_fds[0]);
            run_writer(path_, job, sweep, pipe_fds[1]);
        }
        close(pipe_fds[1]);

        // Let it commit a few points, then kill it wherever it is.
        std::vector<std::uint32_t> reported;
        const std::size_t wait_for = std::min<std::size_t>(10, before.size());
        for (std::uint32_t index = 0; reported.size() < wait_for;) {
            ASSERT_TRUE(read_all(pipe_fds[0], &index, sizeof index)) << "writer exited early";
            reported.push_back(index);
        }
        ASSERT_EQ(kill(child.pid, SIGKILL), 0);
        int status = 0;
        ASSERT_EQ(waitpid(child.pid, &status, 0), child.pid);
        child.pid = -1;
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
        for (std::uint32_t index = 0; read_all(pipe_fds[0], &index, sizeof index);) reported.push_back(index);
        close(pipe_fds[0]);

        MeasureDb db = MeasureDb::open(path_);
        EXPECT_EQ(db.integrity_check(), "ok");

        // Every point is stored once, with the values that were written.
        const std::vector<StoredPoint> stored = db.points(job);
        EXPECT_EQ(stored.size(), db.count_points(job));
        std::set<PointKey> stored_keys;
        for (const StoredPoint& point : stored) {
            EXPECT_TRUE(stored_keys.insert(point.key).second) << "duplicate point";
            ASSERT_TRUE(index_of.count(point.key));
            expect_same_summary(point.summary, summary_for_index(index_of.at(point.key)));
        }

        // The child worked through `before` in order: what it reported is a
        // prefix, and what got committed is that prefix plus at most the one
        // point whose notification the kill cut off.
        ASSERT_LE(reported.size(), before.size());
        for (std::size_t i = 0; i < reported.size(); ++i) EXPECT_EQ(sweep[reported[i]], before[i]);
        const std::size_t committed = stored.size() - stored_before;
        EXPECT_GE(committed, reported.size());
        EXPECT_LE(committed, reported.size() + 1);
        for (std::size_t i = 0; i < before.size(); ++i)
            EXPECT_EQ(stored_keys.count(before[i]) == 1, i < committed) << "pending point " << i;

        std::vector<PointKey> expected_pending;
        for (const PointKey& point : sweep)
            if (!stored_keys.count(point)) expected_pending.push_back(point);
        EXPECT_EQ(db.pending(job, sweep), expected_pending);
    }

    // Resume to the end: the full sweep is then present exactly once.
    MeasureDb db = MeasureDb::open(path_);
    for (const PointKey& point : db.pending(job, sweep))
        EXPECT_TRUE(db.record_point(job, point, summary_for_index(index_of.at(point))));
    EXPECT_TRUE(db.pending(job, sweep).empty());
    EXPECT_EQ(db.count_points(job), sweep.size());
    const std::vector<StoredPoint> stored = db.points(job);
    ASSERT_EQ(stored.size(), sweep.size());
    std::set<PointKey> stored_keys;
    for (const StoredPoint& point : stored) {
        EXPECT_TRUE(stored_keys.insert(point.key).second);
        expect_same_summary(point.summary, summary_for_index(index_of.at(point.key)));
    }
    EXPECT_EQ(stored_keys, std::set<PointKey>(sweep.begin(), sweep.end()));
    EXPECT_EQ(db.integrity_check(), "ok");
}

}  // namespace
}  // namespace hiertune
