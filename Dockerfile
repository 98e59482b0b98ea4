# syntax=docker/dockerfile:1
#
# propel-controller-manager, propel-scheduler and propel-scheduler-estimator image
# (propelctl is included for `propelctl interpret` and `join` from inside the cluster).
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t propel-controller-manager:latest .
#
# VERSION is what the binaries report (--version and the start-up log).
#
# Not built in the development environment this file was written in (it has
# no Docker engine); the same `go build` commands are checked there.

FROM golang:1.26 AS builder
WORKDIR /src
# Module downloads are cached in their own layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0
ARG VERSION=dev
RUN for b in propel-controller-manager propel-scheduler propel-scheduler-estimator propelctl; do \
      go build -trimpath -ldflags "-s -w -X github.com/propel-mc/propel/internal/app/version.stamped=${VERSION}" -o /out/$b ./cmd/$b || exit 1; \
    done

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/propel-controller-manager /out/propel-scheduler /out/propel-scheduler-estimator /out/propelctl /usr/local/bin/
# Karmada's manifests start their binaries by path: the same image can
# replace the karmada-controller-manager, karmada-scheduler and
# karmada-scheduler-estimator images without editing their commands.
COPY --from=builder /out/propel-controller-manager /bin/karmada-controller-manager
COPY --from=builder /out/propel-scheduler /bin/karmada-scheduler
COPY --from=builder /out/propel-scheduler-estimator /bin/karmada-scheduler-estimator
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/propel-controller-manager"]
