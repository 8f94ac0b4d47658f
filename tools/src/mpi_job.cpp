#include "mpi_job.hpp"

#include <cstring>
#include <fstream>

#include <mpi.h>
#include <unistd.h>

#include "command_options.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {
// A boot id as Linux writes it, 8-4-4-4-12 hex digits ("" where unreadable)
constexpr std::size_t kBootIdLength = 36;
}  // namespace

MpiToolsSession::MpiToolsSession() {
    int provided = 0;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
}
MpiToolsSession::~MpiToolsSession() { MPI_T_finalize(); }

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

// True on every rank iff `ok` on every rank: decisions taken together.
bool all_ok(bool ok) {
    int value = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return value == 1;
}

int bad_input_on_every_rank(const std::string& error, const std::string& elsewhere, std::ostream& err) {
    if (world_rank() == 0) write_error_line(err, error.empty() ? elsewhere : error);
    return kBadInputStatus;
}

std::vector<int> node_of_each_rank() {
    const int rank = world_rank();
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm shared = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, shared);
    MPI_Comm_free(&shared);
    std::vector<int> node_of_rank(static_cast<std::size_t>(size));
    MPI_Allgather(&leader, 1, MPI_INT, node_of_rank.data(), 1, MPI_INT, MPI_COMM_WORLD);
    return node_of_rank;
}

JobFacts gather_job_facts(const std::string& machine) {
    const int rank = world_rank();
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::vector<int> node_of_rank = node_of_each_rank();

    // Real hosts by processor name: cliques share one host and its cores.
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int name_len = 0;
    MPI_Get_processor_name(name, &name_len);
    std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    const int cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    std::vector<int> cores_of_rank(static_cast<std::size_t>(size));
    MPI_Gather(&cores, 1, MPI_INT, cores_of_rank.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    // the kernel's boot id: namespaces of one machine (emulated nodes) share its cores
    char kernel[kBootIdLength + 1] = {};
    std::ifstream("/proc/sys/kernel/random/boot_id").read(kernel, kBootIdLength);
    std::vector<char> kernels(static_cast<std::size_t>(size) * sizeof kernel);
    MPI_Gather(kernel, sizeof kernel, MPI_CHAR, kernels.data(), sizeof kernel, MPI_CHAR, 0, MPI_COMM_WORLD);

    JobFacts facts;
    if (rank != 0) return facts;
    std::vector<std::string> host_of_rank, kernel_of_rank;
    for (int r = 0; r < size; ++r) {
        const char* host = &names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME];
        host_of_rank.emplace_back(host, strnlen(host, MPI_MAX_PROCESSOR_NAME));
        kernel_of_rank.emplace_back(&kernels[static_cast<std::size_t>(r) * sizeof kernel]);
    }
    facts.oversubscribed = oversubscribed_hosts(host_of_rank, kernel_of_rank, cores_of_rank);

    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int version_len = 0;
    MPI_Get_library_version(version, &version_len);

    const Layout layout = describe_layout(node_of_rank);
    JobDescription& job = facts.job;
    job.machine = machine.empty() ? host_of_rank[0] : machine;
    job.ranks = size;
    job.nodes = layout.nodes;
    job.ppn = layout.ppn;
    job.placement = layout.placement;
    job.mpich_build = condense_library_version(std::string(version, strnlen(version, sizeof version)));
    return facts;
}

}  // namespace hiertune
