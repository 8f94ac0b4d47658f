// The measurement database's tables of `hiertune tune` and `calibrate`: the
// steps' wall times (schema version 3), the links' calibration (version 4),
// the tree timings (version 5) and the hosts whose cores a job's ranks share (8).
#include "hiertune/db/measure_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <SQLiteCpp/VariadicBind.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "hiertune/db/measure_db_rows.hpp"

namespace hiertune {

// ---------------------------------------------------------------- step times

void MeasureDb::add_step_time(JobId job, const std::string& step, double seconds) try {
    if (step.empty()) throw std::invalid_argument("step time without a step name");
    if (!std::isfinite(seconds) || seconds < 0)
        throw std::invalid_argument("step time must be finite and >= 0");
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    SQLite::Statement insert(*db_, "INSERT INTO step_times (job_id, step, seconds) VALUES (?1, ?2, ?3)");
    insert.bind(1, job);
    insert.bind(2, step);
    insert.bind(3, seconds);
    insert.exec();
    transaction.commit();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::map<std::string, double> MeasureDb::step_times(JobId job) const try {
    SQLite::Statement select(
        *db_, "SELECT step, sum(seconds) FROM step_times WHERE job_id = ?1 GROUP BY step ORDER BY step");
    select.bind(1, job);
    std::map<std::string, double> result;
    while (select.executeStep()) result[select.getColumn(0).getString()] = select.getColumn(1).getDouble();
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

// ---------------------------------------------------------------- calibration

bool operator==(const LinkCalibration& a, const LinkCalibration& b) {
    return std::tie(a.link, a.latency, a.bandwidth, a.n_latency, a.n_bandwidth) ==
           std::tie(b.link, b.latency, b.bandwidth, b.n_latency, b.n_bandwidth);
}

void MeasureDb::record_calibration(JobId job, const std::vector<LinkCalibration>& links,
                                   const std::string& cluster) try {
    if (links.empty()) throw std::invalid_argument("calibration without links");
    std::set<std::string> names;
    for (const LinkCalibration& link : links) {
        if (link.link.empty()) throw std::invalid_argument("calibration of a link without a name");
        if (!names.insert(link.link).second) throw std::invalid_argument("link " + link.link + " given twice");
        if (!std::isfinite(link.latency) || link.latency < 0)
            throw std::invalid_argument("link " + link.link + ": latency must be finite and >= 0");
        if (!std::isfinite(link.bandwidth) || link.bandwidth <= 0)
            throw std::invalid_argument("link " + link.link + ": bandwidth must be finite and > 0");
        if (link.n_latency == 0 || link.n_bandwidth == 0)
            throw std::invalid_argument("link " + link.link + ": no repetitions");
    }
    // One transaction: the job's old calibration or the new one, never a mix.
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    clear_job_rows(*db_, "calibration", job);
    SQLite::Statement insert(*db_,
                             "INSERT INTO calibration (job_id, link, latency, bandwidth, n_latency, n_bandwidth,"
                             " cluster) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    for (const LinkCalibration& link : links) {
        insert.reset();
        SQLite::bind(insert, job, link.link, link.latency, link.bandwidth, static_cast<std::int64_t>(link.n_latency),
                     static_cast<std::int64_t>(link.n_bandwidth), cluster);
        insert.exec();
    }
    transaction.commit();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

StoredCalibration MeasureDb::calibration(JobId job) const try {
    // rowid: the order of insertion, which is the order measured
    SQLite::Statement select(*db_,
                             "SELECT link, latency, bandwidth, n_latency, n_bandwidth, cluster, measured_at"
                             " FROM calibration WHERE job_id = ?1 ORDER BY rowid");
    select.bind(1, job);
    StoredCalibration result;
    while (select.executeStep()) {
        result.links.push_back(LinkCalibration{select.getColumn(0).getString(), select.getColumn(1).getDouble(),
                                               select.getColumn(2).getDouble(),
                                               static_cast<std::size_t>(select.getColumn(3).getInt64()),
                                               static_cast<std::size_t>(select.getColumn(4).getInt64())});
        result.cluster = select.getColumn(5).getString();
        result.measured_at = select.getColumn(6).getString();
    }
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

// ---------------------------------------------------------------- shared cores

void MeasureDb::record_shared_cores(JobId job, const std::vector<HostLoad>& hosts) try {
    std::set<std::string> names;
    for (const HostLoad& load : hosts) {
        if (load.host.empty()) throw std::invalid_argument("shared cores without a host name");
        if (!names.insert(load.host).second) throw std::invalid_argument("host " + load.host + " given twice");
        if (load.cores < 1 || load.ranks <= load.cores)
            throw std::invalid_argument("host " + load.host + ": not more ranks than cores (" + to_string(load) + ")");
    }
    // One transaction: the job's last run's hosts, never a mix of two runs.
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    clear_job_rows(*db_, "shared_cores", job);
    SQLite::Statement insert(*db_, "INSERT INTO shared_cores (job_id, hosts, ranks, cores) VALUES (?1, ?2, ?3, ?4)");
    for (const HostLoad& load : hosts) {
        insert.reset();
        SQLite::bind(insert, job, load.host, load.ranks, load.cores);
        insert.exec();
    }
    transaction.commit();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<HostLoad> MeasureDb::shared_cores(JobId job) const try {
    SQLite::Statement select(*db_, "SELECT hosts, ranks, cores FROM shared_cores WHERE job_id = ?1 ORDER BY rowid");
    select.bind(1, job);
    std::vector<HostLoad> result;
    while (select.executeStep())
        result.push_back(HostLoad{select.getColumn(0).getString(), select.getColumn(1).getInt(),
                                  select.getColumn(2).getInt()});
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

// ---------------------------------------------------------------- tree timings

std::string tree_digest(std::string_view content) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (unsigned char c : content) {
        hash ^= c;
        hash *= 0x100000001b3ull;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

void MeasureDb::record_tree_timings(JobId job, const std::string& tree, const std::vector<TreeTiming>& timings) try {
    if (tree.empty()) throw std::invalid_argument("tree timings without a tree digest");
    for (const TreeTiming& timing : timings) {
        if (timing.round < 1) throw std::invalid_argument("tree timing round must be >= 1");
        if (timing.variant != kTreeVariant && timing.variant != kNoTreeVariant)
            throw std::invalid_argument("tree timing variant '" + timing.variant + "': must be tree or no-tree");
        if (timing.collective.empty()) throw std::invalid_argument("tree timing without a collective name");
        to_db_bytes(timing.msg_bytes);
        check_summary(timing.summary);
    }
    // One transaction per job's timings: a killed tune keeps whole jobs only.
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    SQLite::Statement insert(*db_, summary_insert("INSERT OR REPLACE INTO tree_timings",
                                                  "job_id, tree, round, variant, collective, msg_bytes"));
    for (const TreeTiming& timing : timings) {
        insert.reset();
        insert.bind(1, job);
        insert.bind(2, tree);
        insert.bind(3, timing.round);
        insert.bind(4, timing.variant);
        insert.bind(5, timing.collective);
        insert.bind(6, to_db_bytes(timing.msg_bytes));
        bind_summary(insert, 7, timing.summary);
        insert.exec();
    }
    transaction.commit();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<TreeTiming> MeasureDb::tree_timings(JobId job, const std::string& tree) const try {
    SQLite::Statement select(*db_, std::string("SELECT round, variant, collective, msg_bytes, ") + kSummaryColumns +
                                       " FROM tree_timings WHERE job_id = ?1 AND tree = ?2"
                                       " ORDER BY collective, msg_bytes, variant, round");
    select.bind(1, job);
    select.bind(2, tree);
    std::vector<TreeTiming> result;
    while (select.executeStep())
        result.push_back(TreeTiming{select.getColumn(0).getInt(), select.getColumn(1).getString(),
                                    select.getColumn(2).getString(),
                                    static_cast<std::uint64_t>(select.getColumn(3).getInt64()),
                                    read_summary(select, 4)});
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

}  // namespace hiertune
