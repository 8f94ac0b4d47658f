#include "process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace hiertune {

pid_t start_process(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                    const std::string& stdout_path) {
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0) throw ProcessError(std::string("cannot fork: ") + std::strerror(errno));
    if (pid == 0) {
        for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
        if (!stdout_path.empty()) {
            if (!freopen(stdout_path.c_str(), "w", stdout)) _exit(kExecFailed);
        }
        std::vector<char*> args;
        for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(kExecFailed);
    }
    return pid;
}

int wait_process(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw ProcessError(std::string("waitpid: ") + std::strerror(errno));
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

int run_process(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                const std::string& stdout_path) {
    return wait_process(start_process(argv, env, stdout_path));
}

bool runnable(const std::string& command) {
    namespace fs = std::filesystem;
    if (command.find('/') != std::string::npos) return access(command.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / command;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return true;
    }
    return false;
}

}  // namespace hiertune
