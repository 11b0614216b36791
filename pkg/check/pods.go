package check

import (
	"encoding/json"
	"fmt"
	"slices"
)

// podStatus is what a Pod's status says of whether it runs: its phase,
// conditions (PodScheduled) and each container's state.
type podStatus struct {
	Phase      string      `json:"phase"`
	Conditions []condition `json:"conditions"`
	Containers []struct {
		Ready bool `json:"ready"`
		State struct {
			Waiting *struct {
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"waiting"`
		} `json:"state"`
		RestartCount int `json:"restartCount"`
	} `json:"containerStatuses"`
}

// statusOf reads a Pod object's status.
func statusOf(obj map[string]any) podStatus {
	var pod struct {
		Status podStatus `json:"status"`
	}
	data, _ := json.Marshal(obj)
	_ = json.Unmarshal(data, &pod)
	return pod.Status
}

// unrunnable are the reasons a container waits on that do not go away by
// themselves.
var unrunnable = []string{"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError"}

// PodCannotRun says a Pod's phase and what it waits on (Unschedulable, or
// its first waiting container's reason), and whether that is a reason it
// will not start by itself: an image pull that failed, Unschedulable.
func PodCannotRun(obj map[string]any) (string, bool) {
	s := statusOf(obj)
	for _, c := range s.Conditions {
		if c.Type == "PodScheduled" && c.Status == "False" && c.Reason == "Unschedulable" {
			return fmt.Sprintf("%s, Unschedulable: %s", s.Phase, c.Message), true
		}
	}
	for _, c := range s.Containers {
		if w := c.State.Waiting; w != nil {
			return fmt.Sprintf("%s, waiting: %s (%s)", s.Phase, w.Reason, w.Message), slices.Contains(unrunnable, w.Reason)
		}
	}
	return s.Phase, false
}
