#include "cli/child_process.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace streamcheck::cli {
namespace {

// Reads the child's pipe until it closes or the time is up, then reaps it.
ChildResult Collect(pid_t pid, int fd, int timeout_seconds) {
  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    result.failure = "timed out after " + std::to_string(timeout_seconds) + " s";
  } else if (WIFSIGNALED(status)) {
    result.failure = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  } else {
    result.finished = true;
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

ChildResult ForkFailed() {
  ChildResult result;
  result.failure = std::string("cannot start a child process: ") + std::strerror(errno);
  return result;
}

// What a finished program wrote to its stderr file.
std::string ReadBack(int fd) {
  std::string text;
  char buffer[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
  close(fd);
  return text;
}

}  // namespace

ChildResult ProbeInChild(const std::function<int(std::string*)>& probe, int timeout_seconds) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return ForkFailed();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return ForkFailed();
  }
  if (pid == 0) {
    close(fds[0]);
    std::string output;
    const int code = probe(&output);
    for (size_t done = 0; done < output.size();) {
      const ssize_t n = write(fds[1], output.data() + done, output.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(code);
  }
  close(fds[1]);
  return Collect(pid, fds[0], timeout_seconds);
}

ChildResult RunProgram(const std::vector<std::string>& argv, int timeout_seconds, bool separate_errors) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return ForkFailed();
  const int errors = separate_errors ? memfd_create("streamcheck-stderr", MFD_CLOEXEC) : -1;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    if (errors >= 0) close(errors);
    return ForkFailed();
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(fds[1], 1);
    dup2(errors >= 0 ? errors : fds[1], 2);
    signal(SIGPIPE, SIG_DFL);
    execvp(args[0], args.data());
    const std::string message = std::string("cannot run ") + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(2, message.data(), message.size());
    _exit(127);
  }
  close(fds[1]);
  ChildResult result = Collect(pid, fds[0], timeout_seconds);
  if (errors >= 0) result.errors = ReadBack(errors);
  return result;
}

}  // namespace streamcheck::cli
