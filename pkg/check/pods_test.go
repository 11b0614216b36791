package check

import "testing"

func TestPodCannotRunOnlyForReasonsThatStay(t *testing.T) {
	pod := func(status map[string]any) map[string]any { return map[string]any{"status": status} }
	waiting := func(reason string) map[string]any {
		return pod(map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"state": map[string]any{"waiting": map[string]any{"reason": reason, "message": "m"}}}}})
	}
	for _, c := range []struct {
		name string
		pod  map[string]any
		want bool
	}{
		{"image pull back-off", waiting("ImagePullBackOff"), true},
		{"image pull error", waiting("ErrImagePull"), true},
		{"container creating", waiting("ContainerCreating"), false},
		{"unschedulable", pod(map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}}}), true},
		{"running", pod(map[string]any{"phase": "Running"}), false},
	} {
		if why, got := PodCannotRun(c.pod); got != c.want {
			t.Errorf("%s: PodCannotRun = %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}
