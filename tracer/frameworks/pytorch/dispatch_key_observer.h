// The dispatch-key op observer (dispatch_key_observer.cpp): the PyTorch
// plugin's default way of seeing each op the program calls.
#pragma once

#include <c10/core/DispatchKey.h>

#include <string>

namespace streamcheck::pytorch {

// TESTING_ONLY_GenericMode: the one functionality key above autograd that
// PyTorch itself registers nothing for.
constexpr c10::DispatchKey kObserverKey = c10::DispatchKey::TESTING_ONLY_GenericMode;

// Registers the observer on kObserverKey and includes the key on the calling
// thread; false (with why) where PyTorch refuses it (another tool took the
// key), and the RecordFunction observer is used instead.
bool AttachDispatchObserver(std::string* why);

// Whether AttachDispatchObserver succeeded: threads then include the key.
extern bool g_dispatch_observer;

}  // namespace streamcheck::pytorch
