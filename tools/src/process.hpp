// Child processes of the commands that launch MPI jobs themselves (`hiertune
// tune`, `tree-timing`, `learn`): fork/exec with added environment, and
// whether a command can be started at all.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hiertune {

// fork or waitpid failed.
class ProcessError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The status of a child that could not be started (execvp failed), as a shell
// reports it.
constexpr int kExecFailed = 127;

// Starts argv (argv[0] through PATH unless it has a slash) with `env` added
// to this process's environment and its stdout into `stdout_path` if given
// (truncated); returns its pid.  Flushes std::cout and std::cerr first.
// Throws ProcessError when fork fails.
pid_t start_process(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                    const std::string& stdout_path = "");

// Waits for a child of start_process; returns its exit status (128 + signal
// when killed, kExecFailed when it could not be started).  Throws
// ProcessError when waitpid fails.
int wait_process(pid_t pid);

// start_process, then wait_process.
int run_process(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                const std::string& stdout_path = "");

// Whether execvp could start `command`: a path with a slash as it is, a
// bare name through PATH.
bool runnable(const std::string& command);

}  // namespace hiertune
