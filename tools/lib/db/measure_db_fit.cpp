// The measurement database's tables of `hiertune fit` (schema versions 6 and 7): the
// gamma and experiment measurements, the fitted alpha and beta per algorithm, and the
// eager measurements.
#include "hiertune/db/measure_db.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cmath>
#include <stdexcept>
#include <tuple>

#include "hiertune/db/measure_db_rows.hpp"

namespace hiertune {

namespace {

auto fields(const FitKey& key) {
    return std::tie(key.kind, key.collective, key.algorithm, key.params, key.procs, key.msg_bytes, key.gather_bytes);
}

void check_fit_key(const FitKey& key) {
    const bool gamma = key.kind == kFitGamma;
    if (!gamma && key.kind != kFitExperiment) throw std::invalid_argument("fit point of unknown kind '" + key.kind + "'");
    if (gamma != key.collective.empty() || gamma != key.algorithm.empty())
        throw std::invalid_argument(gamma ? "a gamma point has no collective or algorithm"
                                          : "an experiment needs a collective and an algorithm");
    if (key.procs < 2) throw std::invalid_argument("fit point with fewer than 2 processes");
    to_db_bytes(key.msg_bytes);
    to_db_bytes(key.gather_bytes);
}

// The key's columns after job_id, as SQLite returns them as text.
std::vector<std::string> stored_fit_key(const FitKey& key) {
    check_fit_key(key);
    return {key.kind,
            key.collective,
            key.algorithm,
            canonical_params(key.params),
            std::to_string(key.procs),
            std::to_string(to_db_bytes(key.msg_bytes)),
            std::to_string(to_db_bytes(key.gather_bytes))};
}

constexpr const char* kFitKeyColumns = "kind, collective, algorithm, params, procs, msg_bytes, gather_bytes";

}  // namespace

bool operator==(const FitKey& a, const FitKey& b) { return fields(a) == fields(b); }
bool operator<(const FitKey& a, const FitKey& b) { return fields(a) < fields(b); }

bool MeasureDb::record_fit_point(JobId job, const FitKey& key, const Summary& summary) try {
    const std::vector<std::string> columns = stored_fit_key(key);
    check_summary(summary);
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    SQLite::Statement insert(*db_, "INSERT OR IGNORE" + summary_insert(" INTO fit_points", std::string("job_id, ") +
                                                                                                kFitKeyColumns));
    insert.bind(1, job);
    insert.bind(2, key.kind);
    insert.bind(3, key.collective);
    insert.bind(4, key.algorithm);
    insert.bind(5, columns[3]);
    insert.bind(6, key.procs);
    insert.bind(7, to_db_bytes(key.msg_bytes));
    insert.bind(8, to_db_bytes(key.gather_bytes));
    bind_summary(insert, 9, summary);
    const bool fresh = insert.exec() == 1;
    transaction.commit();
    return fresh;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<StoredFitPoint> MeasureDb::fit_points(JobId job) const try {
    SQLite::Statement select(*db_, std::string("SELECT ") + kFitKeyColumns + ", " + kSummaryColumns +
                                       " FROM fit_points WHERE job_id = ?1 ORDER BY " + kFitKeyColumns);
    select.bind(1, job);
    std::vector<StoredFitPoint> result;
    while (select.executeStep()) {
        StoredFitPoint point;
        point.key.kind = select.getColumn(0).getString();
        point.key.collective = select.getColumn(1).getString();
        point.key.algorithm = select.getColumn(2).getString();
        point.key.params = parse_params(select.getColumn(3).getString());
        point.key.procs = select.getColumn(4).getInt();
        point.key.msg_bytes = static_cast<std::uint64_t>(select.getColumn(5).getInt64());
        point.key.gather_bytes = static_cast<std::uint64_t>(select.getColumn(6).getInt64());
        point.summary = read_summary(select, 7);
        result.push_back(std::move(point));
    }
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<FitKey> MeasureDb::pending_fit_points(JobId job, const std::vector<FitKey>& plan) const try {
    return keys_not_stored(*db_, (std::string("SELECT ") + kFitKeyColumns + " FROM fit_points WHERE job_id = ?1").c_str(),
                           job, plan, stored_fit_key);
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

bool MeasureDb::record_eager_point(JobId job, std::uint64_t msg_bytes, const Summary& summary) try {
    if (msg_bytes == 0) throw std::invalid_argument("eager point of 0 bytes");
    check_summary(summary);
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    SQLite::Statement insert(*db_, "INSERT OR IGNORE" + summary_insert(" INTO fit_eager", "job_id, msg_bytes"));
    insert.bind(1, job);
    insert.bind(2, to_db_bytes(msg_bytes));
    bind_summary(insert, 3, summary);
    const bool fresh = insert.exec() == 1;
    transaction.commit();
    return fresh;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<StoredEagerPoint> MeasureDb::eager_points(JobId job) const try {
    SQLite::Statement select(*db_, std::string("SELECT msg_bytes, ") + kSummaryColumns +
                                       " FROM fit_eager WHERE job_id = ?1 ORDER BY msg_bytes");
    select.bind(1, job);
    std::vector<StoredEagerPoint> result;
    while (select.executeStep())
        result.push_back(
            StoredEagerPoint{static_cast<std::uint64_t>(select.getColumn(0).getInt64()), read_summary(select, 1)});
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

void MeasureDb::record_fit_model(JobId job, const FittedModel& model) try {
    if (model.collective.empty() || model.algorithm.empty())
        throw std::invalid_argument("fitted model without a collective or algorithm");
    if (model.procs < 2) throw std::invalid_argument("fitted model with fewer than 2 processes");
    if (model.equations < 2) throw std::invalid_argument("fitted model from fewer than 2 equations");
    if (!std::isfinite(model.alpha) || !std::isfinite(model.beta))
        throw std::invalid_argument("fitted model with a non-finite alpha or beta");
    SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    require_job(*db_, job);
    SQLite::Statement insert(*db_,
                             "INSERT OR REPLACE INTO fit_models (job_id, collective, algorithm, params, procs, alpha,"
                             " beta, equations) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    insert.bind(1, job);
    insert.bind(2, model.collective);
    insert.bind(3, model.algorithm);
    insert.bind(4, canonical_params(model.params));
    insert.bind(5, model.procs);
    insert.bind(6, model.alpha);
    insert.bind(7, model.beta);
    insert.bind(8, static_cast<std::int64_t>(model.equations));
    insert.exec();
    transaction.commit();
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

std::vector<FittedModel> MeasureDb::fit_models(JobId job) const try {
    SQLite::Statement select(*db_,
                             "SELECT collective, algorithm, params, procs, alpha, beta, equations FROM fit_models"
                             " WHERE job_id = ?1 ORDER BY collective, algorithm");
    select.bind(1, job);
    std::vector<FittedModel> result;
    while (select.executeStep())
        result.push_back(FittedModel{select.getColumn(0).getString(), select.getColumn(1).getString(),
                                     parse_params(select.getColumn(2).getString()), select.getColumn(3).getInt(),
                                     select.getColumn(4).getDouble(), select.getColumn(5).getDouble(),
                                     static_cast<std::size_t>(select.getColumn(6).getInt64())});
    return result;
} catch (const SQLite::Exception& error) { throw db_error(path_, error); }

}  // namespace hiertune
