// Package v1 holds the MySQLCluster API types as a kubebuilder project declares them for samples/mysql/crd.yaml
// (written for this benchmark; deepcopy in zz_generated.deepcopy.go, written in controller-gen's shape).
package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the MySQLCluster CRD.
var GroupVersion = schema.GroupVersion{Group: "example.com", Version: "v1"}

// AddToScheme registers MySQLCluster and MySQLClusterList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &MySQLCluster{}, &MySQLClusterList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

type MySQLCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MySQLClusterSpec   `json:"spec,omitempty"`
	Status MySQLClusterStatus `json:"status,omitempty"`
}

type MySQLClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MySQLCluster `json:"items"`
}

type MySQLClusterSpec struct {
	Replicas              *int32         `json:"replicas,omitempty"`
	Version               string         `json:"version"`
	ImageRepository       string         `json:"imageRepository,omitempty"`
	Storage               *StorageSpec   `json:"storage,omitempty"`
	Resources             *ResourcesSpec `json:"resources,omitempty"`
	RootPasswordSecretRef *SecretKeyRef  `json:"rootPasswordSecretRef,omitempty"`
	Service               *ServiceSpec   `json:"service,omitempty"`
	MyCnf                 string         `json:"myCnf,omitempty"`
	Backup                *BackupSpec    `json:"backup,omitempty"`
}

type StorageSpec struct {
	Size             resource.Quantity `json:"size,omitempty"`
	StorageClassName *string           `json:"storageClassName,omitempty"`
	ReclaimPolicy    string            `json:"reclaimPolicy,omitempty"`
}

type ResourcesSpec struct {
	Requests corev1.ResourceList `json:"requests,omitempty"`
	Limits   corev1.ResourceList `json:"limits,omitempty"`
}

type SecretKeyRef struct {
	Name string `json:"name"`
	Key  string `json:"key,omitempty"`
}

type ServiceSpec struct {
	Type        string            `json:"type,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type BackupSpec struct {
	Schedule                   string             `json:"schedule,omitempty"`
	Suspend                    *bool              `json:"suspend,omitempty"`
	StorageSize                *resource.Quantity `json:"storageSize,omitempty"`
	SuccessfulJobsHistoryLimit *int32             `json:"successfulJobsHistoryLimit,omitempty"`
}

type MySQLClusterStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Replicas           int32              `json:"replicas,omitempty"`
	ReadyReplicas      int32              `json:"readyReplicas,omitempty"`
	UpdatedReplicas    int32              `json:"updatedReplicas,omitempty"`
	CurrentVersion     string             `json:"currentVersion,omitempty"`
	Selector           string             `json:"selector,omitempty"`
	Endpoint           string             `json:"endpoint,omitempty"`
	RootPasswordSecret string             `json:"rootPasswordSecret,omitempty"`
	Phase              string             `json:"phase,omitempty"`
	Backup             *BackupStatus      `json:"backup,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type BackupStatus struct {
	LastScheduleTime   *metav1.Time `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
}
