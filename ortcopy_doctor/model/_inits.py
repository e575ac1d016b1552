# Written by tools/gen_inits.py from the package's @frozen/@mutable classes: do not edit, run that tool again.
# mypy: ignore-errors
"""The ``__init__`` of every ``@frozen``/``@mutable`` class of the package, compiled ahead of time
(model/records.py, tools/gen_inits.py). ``INITS`` maps the source text the decorator would compile to the function
that makes that ``__init__`` over a class's defaults and factories, with the names of those parameters."""


# ortcopy_doctor.analysis.attribution.AttributedTransfer
def _make_0(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, run, kind, direction, bytes, src_kind, dst_kind, duration_ns, node=__ortcopy_default7, op_type=__ortcopy_default8, tensor=__ortcopy_default9, confirms=__ortcopy_default10, at_us=__ortcopy_default11, placed_by=__ortcopy_default12, correlation_id=__ortcopy_default13, boundary_us=__ortcopy_default14) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['run'] = run
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['src_kind'] = src_kind
        __ortcopy_dict['dst_kind'] = dst_kind
        __ortcopy_dict['duration_ns'] = duration_ns
        __ortcopy_dict['node'] = node
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['confirms'] = confirms
        __ortcopy_dict['at_us'] = at_us
        __ortcopy_dict['placed_by'] = placed_by
        __ortcopy_dict['correlation_id'] = correlation_id
        __ortcopy_dict['boundary_us'] = boundary_us
    return __init__


# ortcopy_doctor.analysis.attribution.Bandwidth
def _make_1(__ortcopy_has_factory):
    def __init__(__ortcopy_self, direction, host_kind, count, bytes, duration_ns, gb_per_s, largest_bytes, largest_gb_per_s) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['host_kind'] = host_kind
        __ortcopy_dict['count'] = count
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['duration_ns'] = duration_ns
        __ortcopy_dict['gb_per_s'] = gb_per_s
        __ortcopy_dict['largest_bytes'] = largest_bytes
        __ortcopy_dict['largest_gb_per_s'] = largest_gb_per_s
    return __init__


# ortcopy_doctor.analysis.attribution.CensusReport
def _make_2(__ortcopy_default12, __ortcopy_default14, __ortcopy_default15, __ortcopy_factory13, __ortcopy_has_factory):
    def __init__(__ortcopy_self, backend, backend_version, traced_runs, clock_offset_ns, clock_verified, transfers, runs, per_run, groups, bandwidth, checks, attributed_share, overhead=__ortcopy_default12, notes=__ortcopy_has_factory, clock_error_ns=__ortcopy_default14, boundary_tolerance_us=__ortcopy_default15) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['backend'] = backend
        __ortcopy_dict['backend_version'] = backend_version
        __ortcopy_dict['traced_runs'] = traced_runs
        __ortcopy_dict['clock_offset_ns'] = clock_offset_ns
        __ortcopy_dict['clock_verified'] = clock_verified
        __ortcopy_dict['transfers'] = transfers
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['per_run'] = per_run
        __ortcopy_dict['groups'] = groups
        __ortcopy_dict['bandwidth'] = bandwidth
        __ortcopy_dict['checks'] = checks
        __ortcopy_dict['attributed_share'] = attributed_share
        __ortcopy_dict['overhead'] = overhead
        __ortcopy_dict['notes'] = __ortcopy_factory13() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['clock_error_ns'] = clock_error_ns
        __ortcopy_dict['boundary_tolerance_us'] = boundary_tolerance_us
    return __init__


# ortcopy_doctor.analysis.attribution.ClassTotal
def _make_3(__ortcopy_default0, __ortcopy_default1, __ortcopy_default2, __ortcopy_default3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, count=__ortcopy_default0, bytes=__ortcopy_default1, duration_ns=__ortcopy_default2, share_of_run=__ortcopy_default3) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['count'] = count
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['duration_ns'] = duration_ns
        __ortcopy_dict['share_of_run'] = share_of_run
    return __init__


# ortcopy_doctor.analysis.attribution.ConsistencyCheck
def _make_4(__ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, check, subject, run, expected, observed, ok, detail=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['check'] = check
        __ortcopy_dict['subject'] = subject
        __ortcopy_dict['run'] = run
        __ortcopy_dict['expected'] = expected
        __ortcopy_dict['observed'] = observed
        __ortcopy_dict['ok'] = ok
        __ortcopy_dict['detail'] = detail
    return __init__


# ortcopy_doctor.analysis.attribution.RunTotals
def _make_5(__ortcopy_default3, __ortcopy_default4, __ortcopy_factory2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, run, run_dur_us, classes=__ortcopy_has_factory, host_device_count=__ortcopy_default3, host_device_bytes=__ortcopy_default4) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['run'] = run
        __ortcopy_dict['run_dur_us'] = run_dur_us
        __ortcopy_dict['classes'] = __ortcopy_factory2() if classes is __ortcopy_has_factory else classes
        __ortcopy_dict['host_device_count'] = host_device_count
        __ortcopy_dict['host_device_bytes'] = host_device_bytes
    return __init__


# ortcopy_doctor.analysis.attribution.TransferGroup
def _make_6(__ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, direction, node, op_type, tensor, confirms, src_kind, dst_kind, count_per_run, bytes_per_run, time_ns_per_run, share_of_run) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['node'] = node
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['confirms'] = confirms
        __ortcopy_dict['src_kind'] = src_kind
        __ortcopy_dict['dst_kind'] = dst_kind
        __ortcopy_dict['count_per_run'] = count_per_run
        __ortcopy_dict['bytes_per_run'] = bytes_per_run
        __ortcopy_dict['time_ns_per_run'] = time_ns_per_run
        __ortcopy_dict['share_of_run'] = share_of_run
    return __init__


# ortcopy_doctor.analysis.attribution._Place
def _make_7(__ortcopy_default2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, run, kind, node=__ortcopy_default2) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['run'] = run
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['node'] = node
    return __init__


# ortcopy_doctor.analysis.binding.BindingEntry
def _make_8(__ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, role, place, dtype, shape, preallocate=__ortcopy_default5, reason=__ortcopy_default6, state_pair=__ortcopy_default7, state_basis=__ortcopy_default8, rebind=__ortcopy_default9) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['role'] = role
        __ortcopy_dict['place'] = place
        __ortcopy_dict['dtype'] = dtype
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['preallocate'] = preallocate
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['state_pair'] = state_pair
        __ortcopy_dict['state_basis'] = state_basis
        __ortcopy_dict['rebind'] = rebind
    return __init__


# ortcopy_doctor.analysis.binding.BindingPlan
def _make_9(__ortcopy_default1, __ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default7, __ortcopy_factory0, __ortcopy_factory6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, entries=__ortcopy_has_factory, device_type=__ortcopy_default1, device_id=__ortcopy_default2, applicable=__ortcopy_default3, reason=__ortcopy_default4, code=__ortcopy_default5, possible_state=__ortcopy_has_factory, code_check=__ortcopy_default7) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['entries'] = __ortcopy_factory0() if entries is __ortcopy_has_factory else entries
        __ortcopy_dict['device_type'] = device_type
        __ortcopy_dict['device_id'] = device_id
        __ortcopy_dict['applicable'] = applicable
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['code'] = code
        __ortcopy_dict['possible_state'] = __ortcopy_factory6() if possible_state is __ortcopy_has_factory else possible_state
        __ortcopy_dict['code_check'] = code_check
    return __init__


# ortcopy_doctor.analysis.binding.CodeNames
def _make_10(__ortcopy_has_factory):
    def __init__(__ortcopy_self, inputs, outputs) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['inputs'] = inputs
        __ortcopy_dict['outputs'] = outputs
    return __init__


# ortcopy_doctor.analysis.binding.CodeSizes
def _make_11(__ortcopy_has_factory):
    def __init__(__ortcopy_self, constants, shapes, by_symbol) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['constants'] = constants
        __ortcopy_dict['shapes'] = shapes
        __ortcopy_dict['by_symbol'] = by_symbol
    return __init__


# ortcopy_doctor.analysis.binding.CodeVerdict
def _make_12(__ortcopy_default2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, offered, text, status=__ortcopy_default2) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['offered'] = offered
        __ortcopy_dict['text'] = text
        __ortcopy_dict['status'] = status
    return __init__


# ortcopy_doctor.analysis.binding.DimConstant
def _make_13(__ortcopy_has_factory):
    def __init__(__ortcopy_self, name, size, symbol, comment) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['size'] = size
        __ortcopy_dict['symbol'] = symbol
        __ortcopy_dict['comment'] = comment
    return __init__


# ortcopy_doctor.analysis.binding.StateCandidate
def _make_14(__ortcopy_default3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, input, output, basis, detail=__ortcopy_default3) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['input'] = input
        __ortcopy_dict['output'] = output
        __ortcopy_dict['basis'] = basis
        __ortcopy_dict['detail'] = detail
    return __init__


# ortcopy_doctor.analysis.copies.GraphView
def _make_15(__ortcopy_has_factory):
    def __init__(__ortcopy_self, producers, consumers, opsets) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['producers'] = producers
        __ortcopy_dict['consumers'] = consumers
        __ortcopy_dict['opsets'] = opsets
    return __init__


# ortcopy_doctor.analysis.copies.TensorUse
def _make_16(__ortcopy_has_factory):
    def __init__(__ortcopy_self, node, index) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['node'] = node
        __ortcopy_dict['index'] = index
    return __init__


# ortcopy_doctor.analysis.loops.Iteration
def _make_17(__ortcopy_default4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, index, calls, stages, start_ns, end_ns=__ortcopy_default4) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['index'] = index
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['stages'] = stages
        __ortcopy_dict['start_ns'] = start_ns
        __ortcopy_dict['end_ns'] = end_ns
    return __init__


# ortcopy_doctor.analysis.loops.Loop
def _make_18(__ortcopy_has_factory):
    def __init__(__ortcopy_self, head, sessions, iterations, before, after) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['head'] = head
        __ortcopy_dict['sessions'] = sessions
        __ortcopy_dict['iterations'] = iterations
        __ortcopy_dict['before'] = before
        __ortcopy_dict['after'] = after
    return __init__


# ortcopy_doctor.analysis.loops.LoopCall
def _make_19(__ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, session, start_ns, end_ns, shape=__ortcopy_default3, site=__ortcopy_default4, h2d_bytes=__ortcopy_default5, d2h_bytes=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['session'] = session
        __ortcopy_dict['start_ns'] = start_ns
        __ortcopy_dict['end_ns'] = end_ns
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['site'] = site
        __ortcopy_dict['h2d_bytes'] = h2d_bytes
        __ortcopy_dict['d2h_bytes'] = d2h_bytes
    return __init__


# ortcopy_doctor.analysis.loops.ShapeFirst
def _make_20(__ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, call, session, shape, ns, later_median_ns, later_calls, steady_median_ns=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['call'] = call
        __ortcopy_dict['session'] = session
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['ns'] = ns
        __ortcopy_dict['later_median_ns'] = later_median_ns
        __ortcopy_dict['later_calls'] = later_calls
        __ortcopy_dict['steady_median_ns'] = steady_median_ns
    return __init__


# ortcopy_doctor.analysis.loops.Stage
def _make_21(__ortcopy_default3, __ortcopy_default4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, start_ns, end_ns, call=__ortcopy_default3, next_call=__ortcopy_default4) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['start_ns'] = start_ns
        __ortcopy_dict['end_ns'] = end_ns
        __ortcopy_dict['call'] = call
        __ortcopy_dict['next_call'] = next_call
    return __init__


# ortcopy_doctor.analysis.loops.StageSummary
def _make_22(__ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, session, site, before_session, before_site, count, total_ns, median_ns, per_iteration_ns) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['session'] = session
        __ortcopy_dict['site'] = site
        __ortcopy_dict['before_session'] = before_session
        __ortcopy_dict['before_site'] = before_site
        __ortcopy_dict['count'] = count
        __ortcopy_dict['total_ns'] = total_ns
        __ortcopy_dict['median_ns'] = median_ns
        __ortcopy_dict['per_iteration_ns'] = per_iteration_ns
    return __init__


# ortcopy_doctor.analysis.loops._Found
def _make_23(__ortcopy_has_factory):
    def __init__(__ortcopy_self, head, start, end, heads) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['head'] = head
        __ortcopy_dict['start'] = start
        __ortcopy_dict['end'] = end
        __ortcopy_dict['heads'] = heads
    return __init__


# ortcopy_doctor.analysis.stats.RatioCI
def _make_24(__ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, ratio, low, high, method, n_base, n_other, level=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['ratio'] = ratio
        __ortcopy_dict['low'] = low
        __ortcopy_dict['high'] = high
        __ortcopy_dict['method'] = method
        __ortcopy_dict['n_base'] = n_base
        __ortcopy_dict['n_other'] = n_other
        __ortcopy_dict['level'] = level
    return __init__


# ortcopy_doctor.analysis.stats.Sampler
def _make_25(__ortcopy_default10, __ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_factory8, __ortcopy_factory9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, calls, timer, base=__ortcopy_default2, min_rounds=__ortcopy_default3, budget_s=__ortcopy_default4, target=__ortcopy_default5, max_rounds=__ortcopy_default6, clock=__ortcopy_default7, host=__ortcopy_has_factory, gpu=__ortcopy_has_factory, stop_reason=__ortcopy_default10) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['timer'] = timer
        __ortcopy_dict['base'] = base
        __ortcopy_dict['min_rounds'] = min_rounds
        __ortcopy_dict['budget_s'] = budget_s
        __ortcopy_dict['target'] = target
        __ortcopy_dict['max_rounds'] = max_rounds
        __ortcopy_dict['clock'] = clock
        __ortcopy_dict['host'] = __ortcopy_factory8() if host is __ortcopy_has_factory else host
        __ortcopy_dict['gpu'] = __ortcopy_factory9() if gpu is __ortcopy_has_factory else gpu
        __ortcopy_dict['stop_reason'] = stop_reason
    return __init__


# ortcopy_doctor.cli.ci.CiOptions
def _make_26(__ortcopy_default1, __ortcopy_default2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, gate, sarif=__ortcopy_default1, trace=__ortcopy_default2) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['gate'] = gate
        __ortcopy_dict['sarif'] = sarif
        __ortcopy_dict['trace'] = trace
    return __init__


# ortcopy_doctor.collect.budget.Budget
def _make_27(__ortcopy_has_factory):
    def __init__(__ortcopy_self, bytes, source) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['source'] = source
    return __init__


# ortcopy_doctor.collect.budget.ProfilePlan
def _make_28(__ortcopy_default1, __ortcopy_has_factory):
    def __init__(__ortcopy_self, runs, note=__ortcopy_default1) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['note'] = note
    return __init__


# ortcopy_doctor.collect.code_check.Block
def _make_29(__ortcopy_default6, __ortcopy_default7, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, code, plan, flavor, namespace=__ortcopy_has_factory, first_inputs=__ortcopy_has_factory, setup_ms=__ortcopy_default6, first_ms=__ortcopy_default7) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['code'] = code
        __ortcopy_dict['plan'] = plan
        __ortcopy_dict['flavor'] = flavor
        __ortcopy_dict['namespace'] = __ortcopy_factory4() if namespace is __ortcopy_has_factory else namespace
        __ortcopy_dict['first_inputs'] = __ortcopy_factory5() if first_inputs is __ortcopy_has_factory else first_inputs
        __ortcopy_dict['setup_ms'] = setup_ms
        __ortcopy_dict['first_ms'] = first_ms
    return __init__


# ortcopy_doctor.collect.code_check.Reference
def _make_30(__ortcopy_has_factory):
    def __init__(__ortcopy_self, session, output_names) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['session'] = session
        __ortcopy_dict['output_names'] = output_names
    return __init__


# ortcopy_doctor.collect.environment.EnvironmentReport
def _make_31(__ortcopy_factory1, __ortcopy_factory2, __ortcopy_factory3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, environment, providers=__ortcopy_has_factory, libraries=__ortcopy_has_factory, warnings=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['environment'] = environment
        __ortcopy_dict['providers'] = __ortcopy_factory1() if providers is __ortcopy_has_factory else providers
        __ortcopy_dict['libraries'] = __ortcopy_factory2() if libraries is __ortcopy_has_factory else libraries
        __ortcopy_dict['warnings'] = __ortcopy_factory3() if warnings is __ortcopy_has_factory else warnings
    return __init__


# ortcopy_doctor.collect.environment.LibraryStatus
def _make_32(__ortcopy_default2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, found, error=__ortcopy_default2) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['found'] = found
        __ortcopy_dict['error'] = error
    return __init__


# ortcopy_doctor.collect.environment.ProviderStatus
def _make_33(__ortcopy_default2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, loadable, reason=__ortcopy_default2) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['loadable'] = loadable
        __ortcopy_dict['reason'] = reason
    return __init__


# ortcopy_doctor.collect.feeds.ChosenDim
def _make_34(__ortcopy_default2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, value, reason, tried=__ortcopy_default2) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['value'] = value
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['tried'] = tried
    return __init__


# ortcopy_doctor.collect.feeds.ChosenValue
def _make_35(__ortcopy_has_factory):
    def __init__(__ortcopy_self, text, reason) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['text'] = text
        __ortcopy_dict['reason'] = reason
    return __init__


# ortcopy_doctor.collect.ortlog.LogFacts
def _make_36(__ortcopy_factory0, __ortcopy_factory1, __ortcopy_factory2, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_factory6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, ep_failures=__ortcopy_has_factory, kernel_not_found=__ortcopy_has_factory, cpu_preferred=__ortcopy_has_factory, memcpy=__ortcopy_has_factory, placement=__ortcopy_has_factory, placement_counts=__ortcopy_has_factory, relevant=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['ep_failures'] = __ortcopy_factory0() if ep_failures is __ortcopy_has_factory else ep_failures
        __ortcopy_dict['kernel_not_found'] = __ortcopy_factory1() if kernel_not_found is __ortcopy_has_factory else kernel_not_found
        __ortcopy_dict['cpu_preferred'] = __ortcopy_factory2() if cpu_preferred is __ortcopy_has_factory else cpu_preferred
        __ortcopy_dict['memcpy'] = __ortcopy_factory3() if memcpy is __ortcopy_has_factory else memcpy
        __ortcopy_dict['placement'] = __ortcopy_factory4() if placement is __ortcopy_has_factory else placement
        __ortcopy_dict['placement_counts'] = __ortcopy_factory5() if placement_counts is __ortcopy_has_factory else placement_counts
        __ortcopy_dict['relevant'] = __ortcopy_factory6() if relevant is __ortcopy_has_factory else relevant
    return __init__


# ortcopy_doctor.collect.session.CheckOptions
def _make_37(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default15, __ortcopy_default16, __ortcopy_default17, __ortcopy_default2, __ortcopy_default5, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory0, __ortcopy_factory1, __ortcopy_factory14, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_factory6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, providers=__ortcopy_has_factory, provider_options=__ortcopy_has_factory, device_id=__ortcopy_default2, dims=__ortcopy_has_factory, shapes=__ortcopy_has_factory, inputs_file=__ortcopy_default5, values=__ortcopy_has_factory, state=__ortcopy_has_factory, strict_shapes=__ortcopy_default8, static=__ortcopy_default9, warmup_runs=__ortcopy_default10, profiled_runs=__ortcopy_default11, timed_runs=__ortcopy_default12, seed=__ortcopy_default13, custom_op_libraries=__ortcopy_has_factory, measure_binding=__ortcopy_default15, measure_runs=__ortcopy_default16, measure_budget_s=__ortcopy_default17) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['providers'] = __ortcopy_factory0() if providers is __ortcopy_has_factory else providers
        __ortcopy_dict['provider_options'] = __ortcopy_factory1() if provider_options is __ortcopy_has_factory else provider_options
        __ortcopy_dict['device_id'] = device_id
        __ortcopy_dict['dims'] = __ortcopy_factory3() if dims is __ortcopy_has_factory else dims
        __ortcopy_dict['shapes'] = __ortcopy_factory4() if shapes is __ortcopy_has_factory else shapes
        __ortcopy_dict['inputs_file'] = inputs_file
        __ortcopy_dict['values'] = __ortcopy_factory6() if values is __ortcopy_has_factory else values
        __ortcopy_dict['state'] = __ortcopy_factory7() if state is __ortcopy_has_factory else state
        __ortcopy_dict['strict_shapes'] = strict_shapes
        __ortcopy_dict['static'] = static
        __ortcopy_dict['warmup_runs'] = warmup_runs
        __ortcopy_dict['profiled_runs'] = profiled_runs
        __ortcopy_dict['timed_runs'] = timed_runs
        __ortcopy_dict['seed'] = seed
        __ortcopy_dict['custom_op_libraries'] = __ortcopy_factory14() if custom_op_libraries is __ortcopy_has_factory else custom_op_libraries
        __ortcopy_dict['measure_binding'] = measure_binding
        __ortcopy_dict['measure_runs'] = measure_runs
        __ortcopy_dict['measure_budget_s'] = measure_budget_s
    return __init__


# ortcopy_doctor.collect.sizes.RunFailure
def _make_38(__ortcopy_has_factory):
    def __init__(__ortcopy_self, op_type, node, message) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['node'] = node
        __ortcopy_dict['message'] = message
    return __init__


# ortcopy_doctor.collect.sizes.Sizing
def _make_39(__ortcopy_factory0, __ortcopy_factory1, __ortcopy_has_factory):
    def __init__(__ortcopy_self, dims=__ortcopy_has_factory, values=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['dims'] = __ortcopy_factory0() if dims is __ortcopy_has_factory else dims
        __ortcopy_dict['values'] = __ortcopy_factory1() if values is __ortcopy_has_factory else values
    return __init__


# ortcopy_doctor.knowledge.kernel_memory.InKernelTransfer
def _make_40(__ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, direction, host, size, reason, bytes=__ortcopy_default4, when=__ortcopy_default5, source=__ortcopy_default6, tensor=__ortcopy_default7) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['host'] = host
        __ortcopy_dict['size'] = size
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['when'] = when
        __ortcopy_dict['source'] = source
        __ortcopy_dict['tensor'] = tensor
    return __init__


# ortcopy_doctor.knowledge.kernels.KernelMatch
def _make_41(__ortcopy_default10, __ortcopy_default11, __ortcopy_default13, __ortcopy_default14, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory12, __ortcopy_has_factory):
    def __init__(__ortcopy_self, found, reason, provider, domain, op_type, opset, registration=__ortcopy_default6, nearest_opset=__ortcopy_default7, arg_kind=__ortcopy_default8, arg_index=__ortcopy_default9, arg_name=__ortcopy_default10, arg_type=__ortcopy_default11, supported_types=__ortcopy_has_factory, suggested_cast=__ortcopy_default13, note=__ortcopy_default14) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['found'] = found
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['domain'] = domain
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['opset'] = opset
        __ortcopy_dict['registration'] = registration
        __ortcopy_dict['nearest_opset'] = nearest_opset
        __ortcopy_dict['arg_kind'] = arg_kind
        __ortcopy_dict['arg_index'] = arg_index
        __ortcopy_dict['arg_name'] = arg_name
        __ortcopy_dict['arg_type'] = arg_type
        __ortcopy_dict['supported_types'] = __ortcopy_factory12() if supported_types is __ortcopy_has_factory else supported_types
        __ortcopy_dict['suggested_cast'] = suggested_cast
        __ortcopy_dict['note'] = note
    return __init__


# ortcopy_doctor.knowledge.kernels.Registration
def _make_42(__ortcopy_has_factory):
    def __init__(__ortcopy_self, since, until, types, inputs, outputs) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['since'] = since
        __ortcopy_dict['until'] = until
        __ortcopy_dict['types'] = types
        __ortcopy_dict['inputs'] = inputs
        __ortcopy_dict['outputs'] = outputs
    return __init__


# ortcopy_doctor.knowledge.prediction.Correction
def _make_43(__ortcopy_default8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, ort_version, provider, domain, op_type, since, until, has_kernel, evidence, when=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['ort_version'] = ort_version
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['domain'] = domain
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['since'] = since
        __ortcopy_dict['until'] = until
        __ortcopy_dict['has_kernel'] = has_kernel
        __ortcopy_dict['evidence'] = evidence
        __ortcopy_dict['when'] = when
    return __init__


# ortcopy_doctor.knowledge.prediction.Prediction
def _make_44(__ortcopy_default5, __ortcopy_factory1, __ortcopy_factory2, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, provider, nodes=__ortcopy_has_factory, memcpy_insertions=__ortcopy_has_factory, notes=__ortcopy_has_factory, removed=__ortcopy_has_factory, shaped_model=__ortcopy_default5) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['nodes'] = __ortcopy_factory1() if nodes is __ortcopy_has_factory else nodes
        __ortcopy_dict['memcpy_insertions'] = __ortcopy_factory2() if memcpy_insertions is __ortcopy_has_factory else memcpy_insertions
        __ortcopy_dict['notes'] = __ortcopy_factory3() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['removed'] = __ortcopy_factory4() if removed is __ortcopy_has_factory else removed
        __ortcopy_dict['shaped_model'] = shaped_model
    return __init__


# ortcopy_doctor.knowledge.prediction.RemovedNode
def _make_45(__ortcopy_has_factory):
    def __init__(__ortcopy_self, name, op_type, graph, why) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['graph'] = graph
        __ortcopy_dict['why'] = why
    return __init__


# ortcopy_doctor.knowledge.prediction._NodeFacts
def _make_46(__ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, node, domain, opset, input_types, output_types, match=__ortcopy_default5, provider=__ortcopy_default6, reason=__ortcopy_default7, detail=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['node'] = node
        __ortcopy_dict['domain'] = domain
        __ortcopy_dict['opset'] = opset
        __ortcopy_dict['input_types'] = input_types
        __ortcopy_dict['output_types'] = output_types
        __ortcopy_dict['match'] = match
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['detail'] = detail
    return __init__


# ortcopy_doctor.model.census.Census
def _make_47(__ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_factory0, __ortcopy_factory1, __ortcopy_factory5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, records=__ortcopy_has_factory, clock_pairs=__ortcopy_has_factory, backend=__ortcopy_default2, clock_error_ns=__ortcopy_default3, clock_verified=__ortcopy_default4, notes=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['records'] = __ortcopy_factory0() if records is __ortcopy_has_factory else records
        __ortcopy_dict['clock_pairs'] = __ortcopy_factory1() if clock_pairs is __ortcopy_has_factory else clock_pairs
        __ortcopy_dict['backend'] = backend
        __ortcopy_dict['clock_error_ns'] = clock_error_ns
        __ortcopy_dict['clock_verified'] = clock_verified
        __ortcopy_dict['notes'] = __ortcopy_factory5() if notes is __ortcopy_has_factory else notes
    return __init__


# ortcopy_doctor.model.census.TransferRecord
def _make_48(__ortcopy_default7, __ortcopy_default8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, direction, bytes, src_kind, dst_kind, start_ns, end_ns, correlation_id, api_start_ns=__ortcopy_default7, api_kind=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['src_kind'] = src_kind
        __ortcopy_dict['dst_kind'] = dst_kind
        __ortcopy_dict['start_ns'] = start_ns
        __ortcopy_dict['end_ns'] = end_ns
        __ortcopy_dict['correlation_id'] = correlation_id
        __ortcopy_dict['api_start_ns'] = api_start_ns
        __ortcopy_dict['api_kind'] = api_kind
    return __init__


# ortcopy_doctor.model.copies.Copy
def _make_49(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_factory8, __ortcopy_factory9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, direction, tensor, bytes_per_run, count_per_run=__ortcopy_default4, shape=__ortcopy_default5, dtype=__ortcopy_default6, node=__ortcopy_default7, producers=__ortcopy_has_factory, consumers=__ortcopy_has_factory, cause=__ortcopy_default10, removable_by_binding=__ortcopy_default11, source=__ortcopy_default12, confirmed=__ortcopy_default13, branch=__ortcopy_default14) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['bytes_per_run'] = bytes_per_run
        __ortcopy_dict['count_per_run'] = count_per_run
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['dtype'] = dtype
        __ortcopy_dict['node'] = node
        __ortcopy_dict['producers'] = __ortcopy_factory8() if producers is __ortcopy_has_factory else producers
        __ortcopy_dict['consumers'] = __ortcopy_factory9() if consumers is __ortcopy_has_factory else consumers
        __ortcopy_dict['cause'] = cause
        __ortcopy_dict['removable_by_binding'] = removable_by_binding
        __ortcopy_dict['source'] = source
        __ortcopy_dict['confirmed'] = confirmed
        __ortcopy_dict['branch'] = branch
    return __init__


# ortcopy_doctor.model.diff.Change
def _make_50(__ortcopy_factory4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, status, key, before, after, what=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['status'] = status
        __ortcopy_dict['key'] = key
        __ortcopy_dict['before'] = before
        __ortcopy_dict['after'] = after
        __ortcopy_dict['what'] = __ortcopy_factory4() if what is __ortcopy_has_factory else what
    return __init__


# ortcopy_doctor.model.diff.Delta
def _make_51(__ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, label, before, after, unit=__ortcopy_default3, before_unknown=__ortcopy_default4, after_unknown=__ortcopy_default5) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['label'] = label
        __ortcopy_dict['before'] = before
        __ortcopy_dict['after'] = after
        __ortcopy_dict['unit'] = unit
        __ortcopy_dict['before_unknown'] = before_unknown
        __ortcopy_dict['after_unknown'] = after_unknown
    return __init__


# ortcopy_doctor.model.diff.PredictedDiff
def _make_52(__ortcopy_has_factory):
    def __init__(__ortcopy_self, provider, copies, findings, deltas) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['copies'] = copies
        __ortcopy_dict['findings'] = findings
        __ortcopy_dict['deltas'] = deltas
    return __init__


# ortcopy_doctor.model.diff.ReportDiff
def _make_53(__ortcopy_default10, __ortcopy_default9, __ortcopy_factory8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, a_name, b_name, a, b, copies, findings, deltas, environment, inputs=__ortcopy_has_factory, predicted=__ortcopy_default9, predicted_note=__ortcopy_default10) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['a_name'] = a_name
        __ortcopy_dict['b_name'] = b_name
        __ortcopy_dict['a'] = a
        __ortcopy_dict['b'] = b
        __ortcopy_dict['copies'] = copies
        __ortcopy_dict['findings'] = findings
        __ortcopy_dict['deltas'] = deltas
        __ortcopy_dict['environment'] = environment
        __ortcopy_dict['inputs'] = __ortcopy_factory8() if inputs is __ortcopy_has_factory else inputs
        __ortcopy_dict['predicted'] = predicted
        __ortcopy_dict['predicted_note'] = predicted_note
    return __init__


# ortcopy_doctor.model.evidence.AssumedDim
def _make_54(__ortcopy_default5, __ortcopy_default6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, input, axis, declared, value, flag, near=__ortcopy_default5, reason=__ortcopy_default6, tried=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['input'] = input
        __ortcopy_dict['axis'] = axis
        __ortcopy_dict['declared'] = declared
        __ortcopy_dict['value'] = value
        __ortcopy_dict['flag'] = flag
        __ortcopy_dict['near'] = near
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['tried'] = __ortcopy_factory7() if tried is __ortcopy_has_factory else tried
    return __init__


# ortcopy_doctor.model.evidence.BindingMeasurement
def _make_55(__ortcopy_default1, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_default7, __ortcopy_default8, __ortcopy_factory10, __ortcopy_factory5, __ortcopy_factory6, __ortcopy_factory9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, status, reason=__ortcopy_default1, runs=__ortcopy_default2, warmup_runs=__ortcopy_default3, transfer_source=__ortcopy_default4, variants=__ortcopy_has_factory, phases=__ortcopy_has_factory, phase_binding=__ortcopy_default7, pinned=__ortcopy_default8, cuda_graph_blockers=__ortcopy_has_factory, notes=__ortcopy_has_factory, min_runs=__ortcopy_default11, budget_s=__ortcopy_default12, stop_reason=__ortcopy_default13, gpu_timer=__ortcopy_default14) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['status'] = status
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['warmup_runs'] = warmup_runs
        __ortcopy_dict['transfer_source'] = transfer_source
        __ortcopy_dict['variants'] = __ortcopy_factory5() if variants is __ortcopy_has_factory else variants
        __ortcopy_dict['phases'] = __ortcopy_factory6() if phases is __ortcopy_has_factory else phases
        __ortcopy_dict['phase_binding'] = phase_binding
        __ortcopy_dict['pinned'] = pinned
        __ortcopy_dict['cuda_graph_blockers'] = __ortcopy_factory9() if cuda_graph_blockers is __ortcopy_has_factory else cuda_graph_blockers
        __ortcopy_dict['notes'] = __ortcopy_factory10() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['min_runs'] = min_runs
        __ortcopy_dict['budget_s'] = budget_s
        __ortcopy_dict['stop_reason'] = stop_reason
        __ortcopy_dict['gpu_timer'] = gpu_timer
    return __init__


# ortcopy_doctor.model.evidence.CensusEvidence
def _make_56(__ortcopy_default5, __ortcopy_default8, __ortcopy_factory2, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_factory6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, backend, backend_version, records=__ortcopy_has_factory, clock_pairs=__ortcopy_has_factory, traced_runs=__ortcopy_has_factory, clock_verified=__ortcopy_default5, traced_run_ms=__ortcopy_has_factory, notes=__ortcopy_has_factory, clock_error_ns=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['backend'] = backend
        __ortcopy_dict['backend_version'] = backend_version
        __ortcopy_dict['records'] = __ortcopy_factory2() if records is __ortcopy_has_factory else records
        __ortcopy_dict['clock_pairs'] = __ortcopy_factory3() if clock_pairs is __ortcopy_has_factory else clock_pairs
        __ortcopy_dict['traced_runs'] = __ortcopy_factory4() if traced_runs is __ortcopy_has_factory else traced_runs
        __ortcopy_dict['clock_verified'] = clock_verified
        __ortcopy_dict['traced_run_ms'] = __ortcopy_factory6() if traced_run_ms is __ortcopy_has_factory else traced_run_ms
        __ortcopy_dict['notes'] = __ortcopy_factory7() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['clock_error_ns'] = clock_error_ns
    return __init__


# ortcopy_doctor.model.evidence.CodeCheck
def _make_57(__ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, block, status, device=__ortcopy_default2, calls=__ortcopy_default3, detail=__ortcopy_default4, tolerance=__ortcopy_default5, code_sha256=__ortcopy_default6, nondeterministic=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['block'] = block
        __ortcopy_dict['status'] = status
        __ortcopy_dict['device'] = device
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['detail'] = detail
        __ortcopy_dict['tolerance'] = tolerance
        __ortcopy_dict['code_sha256'] = code_sha256
        __ortcopy_dict['nondeterministic'] = __ortcopy_factory7() if nondeterministic is __ortcopy_has_factory else nondeterministic
    return __init__


# ortcopy_doctor.model.evidence.Environment
def _make_58(__ortcopy_default9, __ortcopy_factory8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, ort_version, ort_build, ort_package, onnx_version, numpy_version, python, platform, available_providers, gpus=__ortcopy_has_factory, ort_has_from_dlpack=__ortcopy_default9) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['ort_version'] = ort_version
        __ortcopy_dict['ort_build'] = ort_build
        __ortcopy_dict['ort_package'] = ort_package
        __ortcopy_dict['onnx_version'] = onnx_version
        __ortcopy_dict['numpy_version'] = numpy_version
        __ortcopy_dict['python'] = python
        __ortcopy_dict['platform'] = platform
        __ortcopy_dict['available_providers'] = available_providers
        __ortcopy_dict['gpus'] = __ortcopy_factory8() if gpus is __ortcopy_has_factory else gpus
        __ortcopy_dict['ort_has_from_dlpack'] = ort_has_from_dlpack
    return __init__


# ortcopy_doctor.model.evidence.Evidence
def _make_59(__ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default15, __ortcopy_default16, __ortcopy_default18, __ortcopy_default21, __ortcopy_default22, __ortcopy_default23, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory10, __ortcopy_factory11, __ortcopy_factory17, __ortcopy_factory19, __ortcopy_factory20, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_factory6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, model, session, environment, feeds=__ortcopy_has_factory, nodes=__ortcopy_has_factory, memcpy_insertions=__ortcopy_has_factory, node_events=__ortcopy_has_factory, run_events=__ortcopy_has_factory, timings=__ortcopy_default8, mode=__ortcopy_default9, notes=__ortcopy_has_factory, value_infos=__ortcopy_has_factory, predicted=__ortcopy_default12, failure=__ortcopy_default13, census=__ortcopy_default14, census_status=__ortcopy_default15, binding_measurement=__ortcopy_default16, assumed_dims=__ortcopy_has_factory, inputs_file=__ortcopy_default18, given_state=__ortcopy_has_factory, code_checks=__ortcopy_has_factory, tool_version=__ortcopy_default21, created_utc=__ortcopy_default22, format_version=__ortcopy_default23) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['model'] = model
        __ortcopy_dict['session'] = session
        __ortcopy_dict['environment'] = environment
        __ortcopy_dict['feeds'] = __ortcopy_factory3() if feeds is __ortcopy_has_factory else feeds
        __ortcopy_dict['nodes'] = __ortcopy_factory4() if nodes is __ortcopy_has_factory else nodes
        __ortcopy_dict['memcpy_insertions'] = __ortcopy_factory5() if memcpy_insertions is __ortcopy_has_factory else memcpy_insertions
        __ortcopy_dict['node_events'] = __ortcopy_factory6() if node_events is __ortcopy_has_factory else node_events
        __ortcopy_dict['run_events'] = __ortcopy_factory7() if run_events is __ortcopy_has_factory else run_events
        __ortcopy_dict['timings'] = timings
        __ortcopy_dict['mode'] = mode
        __ortcopy_dict['notes'] = __ortcopy_factory10() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['value_infos'] = __ortcopy_factory11() if value_infos is __ortcopy_has_factory else value_infos
        __ortcopy_dict['predicted'] = predicted
        __ortcopy_dict['failure'] = failure
        __ortcopy_dict['census'] = census
        __ortcopy_dict['census_status'] = census_status
        __ortcopy_dict['binding_measurement'] = binding_measurement
        __ortcopy_dict['assumed_dims'] = __ortcopy_factory17() if assumed_dims is __ortcopy_has_factory else assumed_dims
        __ortcopy_dict['inputs_file'] = inputs_file
        __ortcopy_dict['given_state'] = __ortcopy_factory19() if given_state is __ortcopy_has_factory else given_state
        __ortcopy_dict['code_checks'] = __ortcopy_factory20() if code_checks is __ortcopy_has_factory else code_checks
        __ortcopy_dict['tool_version'] = tool_version
        __ortcopy_dict['created_utc'] = created_utc
        __ortcopy_dict['format_version'] = format_version
    return __init__


# ortcopy_doctor.model.evidence.Feed
def _make_60(__ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, dtype, shape, bytes, source, high=__ortcopy_default5, value=__ortcopy_default6, chosen=__ortcopy_default7) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['dtype'] = dtype
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['source'] = source
        __ortcopy_dict['high'] = high
        __ortcopy_dict['value'] = value
        __ortcopy_dict['chosen'] = chosen
    return __init__


# ortcopy_doctor.model.evidence.LogLine
def _make_61(__ortcopy_has_factory):
    def __init__(__ortcopy_self, severity, source, message) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['severity'] = severity
        __ortcopy_dict['source'] = source
        __ortcopy_dict['message'] = message
    return __init__


# ortcopy_doctor.model.evidence.MemcpyInsertion
def _make_62(__ortcopy_default3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, op_type, tensor, provider, graph=__ortcopy_default3) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['graph'] = graph
    return __init__


# ortcopy_doctor.model.evidence.ModelInfo
def _make_63(__ortcopy_default13, __ortcopy_factory12, __ortcopy_has_factory):
    def __init__(__ortcopy_self, path, file_bytes, sha256, ir_version, producer, opsets, inputs, outputs, nodes, subgraphs, initializer_count, initializer_bytes, external_data_files=__ortcopy_has_factory, external_data_bytes=__ortcopy_default13) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['path'] = path
        __ortcopy_dict['file_bytes'] = file_bytes
        __ortcopy_dict['sha256'] = sha256
        __ortcopy_dict['ir_version'] = ir_version
        __ortcopy_dict['producer'] = producer
        __ortcopy_dict['opsets'] = opsets
        __ortcopy_dict['inputs'] = inputs
        __ortcopy_dict['outputs'] = outputs
        __ortcopy_dict['nodes'] = nodes
        __ortcopy_dict['subgraphs'] = subgraphs
        __ortcopy_dict['initializer_count'] = initializer_count
        __ortcopy_dict['initializer_bytes'] = initializer_bytes
        __ortcopy_dict['external_data_files'] = __ortcopy_factory12() if external_data_files is __ortcopy_has_factory else external_data_files
        __ortcopy_dict['external_data_bytes'] = external_data_bytes
    return __init__


# ortcopy_doctor.model.evidence.NodeEvent
def _make_64(__ortcopy_has_factory):
    def __init__(__ortcopy_self, run, name, op_type, provider, ts_us, dur_us, input_shapes, output_shapes, output_bytes) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['run'] = run
        __ortcopy_dict['name'] = name
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['ts_us'] = ts_us
        __ortcopy_dict['dur_us'] = dur_us
        __ortcopy_dict['input_shapes'] = input_shapes
        __ortcopy_dict['output_shapes'] = output_shapes
        __ortcopy_dict['output_bytes'] = output_bytes
    return __init__


# ortcopy_doctor.model.evidence.NodeInfo
def _make_65(__ortcopy_default5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, op_type, domain, inputs, outputs, graph=__ortcopy_default5) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['domain'] = domain
        __ortcopy_dict['inputs'] = inputs
        __ortcopy_dict['outputs'] = outputs
        __ortcopy_dict['graph'] = graph
    return __init__


# ortcopy_doctor.model.evidence.PhaseTiming
def _make_66(__ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, phase, what, runs, median_ms=__ortcopy_default3, p10_ms=__ortcopy_default4, p90_ms=__ortcopy_default5, bytes=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['phase'] = phase
        __ortcopy_dict['what'] = what
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['median_ms'] = median_ms
        __ortcopy_dict['p10_ms'] = p10_ms
        __ortcopy_dict['p90_ms'] = p90_ms
        __ortcopy_dict['bytes'] = bytes
    return __init__


# ortcopy_doctor.model.evidence.PinnedTiming
def _make_67(__ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, method, bytes, runs=__ortcopy_default2, pageable_ms=__ortcopy_default3, pinned_ms=__ortcopy_default4, staging_ms=__ortcopy_default5, skipped_reason=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['method'] = method
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['pageable_ms'] = pageable_ms
        __ortcopy_dict['pinned_ms'] = pinned_ms
        __ortcopy_dict['staging_ms'] = staging_ms
        __ortcopy_dict['skipped_reason'] = skipped_reason
    return __init__


# ortcopy_doctor.model.evidence.RunEvent
def _make_68(__ortcopy_has_factory):
    def __init__(__ortcopy_self, run, ts_us, dur_us, warmup) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['run'] = run
        __ortcopy_dict['ts_us'] = ts_us
        __ortcopy_dict['dur_us'] = dur_us
        __ortcopy_dict['warmup'] = warmup
    return __init__


# ortcopy_doctor.model.evidence.RuntimeNode
def _make_69(__ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, op_type, domain, provider, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, graph=__ortcopy_default6, fallback_reason=__ortcopy_default7, fallback_detail=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['domain'] = domain
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['inputs'] = __ortcopy_factory4() if inputs is __ortcopy_has_factory else inputs
        __ortcopy_dict['outputs'] = __ortcopy_factory5() if outputs is __ortcopy_has_factory else outputs
        __ortcopy_dict['graph'] = graph
        __ortcopy_dict['fallback_reason'] = fallback_reason
        __ortcopy_dict['fallback_detail'] = fallback_detail
    return __init__


# ortcopy_doctor.model.evidence.SessionEvidence
def _make_70(__ortcopy_default8, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, requested_providers, active_providers, provider_options, device_id, ep_failure, placement_source, graph_source, log=__ortcopy_has_factory, profiling_start_ns=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['requested_providers'] = requested_providers
        __ortcopy_dict['active_providers'] = active_providers
        __ortcopy_dict['provider_options'] = provider_options
        __ortcopy_dict['device_id'] = device_id
        __ortcopy_dict['ep_failure'] = ep_failure
        __ortcopy_dict['placement_source'] = placement_source
        __ortcopy_dict['graph_source'] = graph_source
        __ortcopy_dict['log'] = __ortcopy_factory7() if log is __ortcopy_has_factory else log
        __ortcopy_dict['profiling_start_ns'] = profiling_start_ns
    return __init__


# ortcopy_doctor.model.evidence.SubgraphInfo
def _make_71(__ortcopy_has_factory):
    def __init__(__ortcopy_self, node, op_type, attribute, node_count) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['node'] = node
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['attribute'] = attribute
        __ortcopy_dict['node_count'] = node_count
    return __init__


# ortcopy_doctor.model.evidence.Timings
def _make_72(__ortcopy_default3, __ortcopy_default4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, warmup_runs, profiled_runs, run_ms, session_create_ms=__ortcopy_default3, first_run_ms=__ortcopy_default4) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['warmup_runs'] = warmup_runs
        __ortcopy_dict['profiled_runs'] = profiled_runs
        __ortcopy_dict['run_ms'] = run_ms
        __ortcopy_dict['session_create_ms'] = session_create_ms
        __ortcopy_dict['first_run_ms'] = first_run_ms
    return __init__


# ortcopy_doctor.model.evidence.ValueInfo
def _make_73(__ortcopy_default4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, kind, elem_type, shape, type_string=__ortcopy_default4) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['elem_type'] = elem_type
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['type_string'] = type_string
    return __init__


# ortcopy_doctor.model.evidence.VariantTiming
def _make_74(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default15, __ortcopy_default16, __ortcopy_default17, __ortcopy_default18, __ortcopy_default19, __ortcopy_default20, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, variant, label, ran, skipped_reason=__ortcopy_default3, runs=__ortcopy_default4, median_ms=__ortcopy_default5, p10_ms=__ortcopy_default6, p25_ms=__ortcopy_default7, p75_ms=__ortcopy_default8, p90_ms=__ortcopy_default9, h2d_count=__ortcopy_default10, h2d_bytes=__ortcopy_default11, d2h_count=__ortcopy_default12, d2h_bytes=__ortcopy_default13, transfer_source=__ortcopy_default14, first_run_ms=__ortcopy_default15, session_create_ms=__ortcopy_default16, samples_ms=__ortcopy_default17, gpu_samples_ms=__ortcopy_default18, gpu_median_ms=__ortcopy_default19, failed=__ortcopy_default20) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['variant'] = variant
        __ortcopy_dict['label'] = label
        __ortcopy_dict['ran'] = ran
        __ortcopy_dict['skipped_reason'] = skipped_reason
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['median_ms'] = median_ms
        __ortcopy_dict['p10_ms'] = p10_ms
        __ortcopy_dict['p25_ms'] = p25_ms
        __ortcopy_dict['p75_ms'] = p75_ms
        __ortcopy_dict['p90_ms'] = p90_ms
        __ortcopy_dict['h2d_count'] = h2d_count
        __ortcopy_dict['h2d_bytes'] = h2d_bytes
        __ortcopy_dict['d2h_count'] = d2h_count
        __ortcopy_dict['d2h_bytes'] = d2h_bytes
        __ortcopy_dict['transfer_source'] = transfer_source
        __ortcopy_dict['first_run_ms'] = first_run_ms
        __ortcopy_dict['session_create_ms'] = session_create_ms
        __ortcopy_dict['samples_ms'] = samples_ms
        __ortcopy_dict['gpu_samples_ms'] = gpu_samples_ms
        __ortcopy_dict['gpu_median_ms'] = gpu_median_ms
        __ortcopy_dict['failed'] = failed
    return __init__


# ortcopy_doctor.model.findings.Finding
def _make_75(__ortcopy_default7, __ortcopy_default8, __ortcopy_factory9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, rule, slug, severity, title, message, fix, location, bytes_per_run=__ortcopy_default7, predicted=__ortcopy_default8, details=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['rule'] = rule
        __ortcopy_dict['slug'] = slug
        __ortcopy_dict['severity'] = severity
        __ortcopy_dict['title'] = title
        __ortcopy_dict['message'] = message
        __ortcopy_dict['fix'] = fix
        __ortcopy_dict['location'] = location
        __ortcopy_dict['bytes_per_run'] = bytes_per_run
        __ortcopy_dict['predicted'] = predicted
        __ortcopy_dict['details'] = __ortcopy_factory9() if details is __ortcopy_has_factory else details
    return __init__


# ortcopy_doctor.render.output.OutputSet
def _make_76(__ortcopy_factory0, __ortcopy_factory1, __ortcopy_has_factory):
    def __init__(__ortcopy_self, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['inputs'] = __ortcopy_factory0() if inputs is __ortcopy_has_factory else inputs
        __ortcopy_dict['outputs'] = __ortcopy_factory1() if outputs is __ortcopy_has_factory else outputs
    return __init__


# ortcopy_doctor.render.output._Output
def _make_77(__ortcopy_default5, __ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, flag, shown, target, kind, identity, text=__ortcopy_default5, tmp=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['flag'] = flag
        __ortcopy_dict['shown'] = shown
        __ortcopy_dict['target'] = target
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['identity'] = identity
        __ortcopy_dict['text'] = text
        __ortcopy_dict['tmp'] = tmp
    return __init__


# ortcopy_doctor.render.svg.Figure
def _make_78(__ortcopy_default2, __ortcopy_factory3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, svg, note, wide=__ortcopy_default2, stats=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['svg'] = svg
        __ortcopy_dict['note'] = note
        __ortcopy_dict['wide'] = wide
        __ortcopy_dict['stats'] = __ortcopy_factory3() if stats is __ortcopy_has_factory else stats
    return __init__


# ortcopy_doctor.render.svg.Island
def _make_79(__ortcopy_has_factory):
    def __init__(__ortcopy_self, nodes, names, neighbours, cpu_preferred) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['nodes'] = nodes
        __ortcopy_dict['names'] = names
        __ortcopy_dict['neighbours'] = neighbours
        __ortcopy_dict['cpu_preferred'] = cpu_preferred
    return __init__


# ortcopy_doctor.render.svg.Layout
def _make_80(__ortcopy_has_factory):
    def __init__(__ortcopy_self, boxes, box_of, edges, islands, collapsed, truncated, layers) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['boxes'] = boxes
        __ortcopy_dict['box_of'] = box_of
        __ortcopy_dict['edges'] = edges
        __ortcopy_dict['islands'] = islands
        __ortcopy_dict['collapsed'] = collapsed
        __ortcopy_dict['truncated'] = truncated
        __ortcopy_dict['layers'] = layers
    return __init__


# ortcopy_doctor.render.svg.Mark
def _make_81(__ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, at_us, bytes, direction, kind, tensor=__ortcopy_default4, node=__ortcopy_default5, source=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['at_us'] = at_us
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['node'] = node
        __ortcopy_dict['source'] = source
    return __init__


# ortcopy_doctor.render.svg._Box
def _make_82(__ortcopy_default2, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, members, collapsed, depth=__ortcopy_default2, row=__ortcopy_default3, x=__ortcopy_default4, y=__ortcopy_default5) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['members'] = members
        __ortcopy_dict['collapsed'] = collapsed
        __ortcopy_dict['depth'] = depth
        __ortcopy_dict['row'] = row
        __ortcopy_dict['x'] = x
        __ortcopy_dict['y'] = y
    return __init__


# ortcopy_doctor.render.svg._Graph
def _make_83(__ortcopy_has_factory):
    def __init__(__ortcopy_self, nodes, succ, pred, edge_tensors) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['nodes'] = nodes
        __ortcopy_dict['succ'] = succ
        __ortcopy_dict['pred'] = pred
        __ortcopy_dict['edge_tensors'] = edge_tensors
    return __init__


# ortcopy_doctor.report.advice.BindingView
def _make_84(__ortcopy_default11, __ortcopy_default13, __ortcopy_default14, __ortcopy_default15, __ortcopy_default16, __ortcopy_default17, __ortcopy_default18, __ortcopy_default2, __ortcopy_default21, __ortcopy_default22, __ortcopy_default24, __ortcopy_default25, __ortcopy_default6, __ortcopy_default8, __ortcopy_factory10, __ortcopy_factory12, __ortcopy_factory19, __ortcopy_factory20, __ortcopy_factory23, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_factory7, __ortcopy_factory9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, status, one_line, reason=__ortcopy_default2, conclusions=__ortcopy_has_factory, warnings=__ortcopy_has_factory, ab_rows=__ortcopy_has_factory, transfer_source=__ortcopy_default6, phase_rows=__ortcopy_has_factory, phase_note=__ortcopy_default8, apart_rows=__ortcopy_has_factory, copy_guidance=__ortcopy_has_factory, graph_ready=__ortcopy_default11, graph_blockers=__ortcopy_has_factory, graph_text=__ortcopy_default13, graph_code=__ortcopy_default14, graph_code_check=__ortcopy_default15, pinned=__ortcopy_default16, all_cpu=__ortcopy_default17, all_cpu_advice=__ortcopy_default18, code_variants=__ortcopy_has_factory, notes=__ortcopy_has_factory, recommended=__ortcopy_default21, recommendation=__ortcopy_default22, needs=__ortcopy_has_factory, host_jitter=__ortcopy_default24, recommended_code=__ortcopy_default25) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['status'] = status
        __ortcopy_dict['one_line'] = one_line
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['conclusions'] = __ortcopy_factory3() if conclusions is __ortcopy_has_factory else conclusions
        __ortcopy_dict['warnings'] = __ortcopy_factory4() if warnings is __ortcopy_has_factory else warnings
        __ortcopy_dict['ab_rows'] = __ortcopy_factory5() if ab_rows is __ortcopy_has_factory else ab_rows
        __ortcopy_dict['transfer_source'] = transfer_source
        __ortcopy_dict['phase_rows'] = __ortcopy_factory7() if phase_rows is __ortcopy_has_factory else phase_rows
        __ortcopy_dict['phase_note'] = phase_note
        __ortcopy_dict['apart_rows'] = __ortcopy_factory9() if apart_rows is __ortcopy_has_factory else apart_rows
        __ortcopy_dict['copy_guidance'] = __ortcopy_factory10() if copy_guidance is __ortcopy_has_factory else copy_guidance
        __ortcopy_dict['graph_ready'] = graph_ready
        __ortcopy_dict['graph_blockers'] = __ortcopy_factory12() if graph_blockers is __ortcopy_has_factory else graph_blockers
        __ortcopy_dict['graph_text'] = graph_text
        __ortcopy_dict['graph_code'] = graph_code
        __ortcopy_dict['graph_code_check'] = graph_code_check
        __ortcopy_dict['pinned'] = pinned
        __ortcopy_dict['all_cpu'] = all_cpu
        __ortcopy_dict['all_cpu_advice'] = all_cpu_advice
        __ortcopy_dict['code_variants'] = __ortcopy_factory19() if code_variants is __ortcopy_has_factory else code_variants
        __ortcopy_dict['notes'] = __ortcopy_factory20() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['recommended'] = recommended
        __ortcopy_dict['recommendation'] = recommendation
        __ortcopy_dict['needs'] = __ortcopy_factory23() if needs is __ortcopy_has_factory else needs
        __ortcopy_dict['host_jitter'] = host_jitter
        __ortcopy_dict['recommended_code'] = recommended_code
    return __init__


# ortcopy_doctor.report.core.Report
def _make_85(__ortcopy_default11, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory10, __ortcopy_has_factory):
    def __init__(__ortcopy_self, evidence, copies, findings, binding, summary, verdict, prediction=__ortcopy_default6, census=__ortcopy_default7, advice=__ortcopy_default8, measured=__ortcopy_default9, conditional_copies=__ortcopy_has_factory, from_cache=__ortcopy_default11) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['evidence'] = evidence
        __ortcopy_dict['copies'] = copies
        __ortcopy_dict['findings'] = findings
        __ortcopy_dict['binding'] = binding
        __ortcopy_dict['summary'] = summary
        __ortcopy_dict['verdict'] = verdict
        __ortcopy_dict['prediction'] = prediction
        __ortcopy_dict['census'] = census
        __ortcopy_dict['advice'] = advice
        __ortcopy_dict['measured'] = measured
        __ortcopy_dict['conditional_copies'] = __ortcopy_factory10() if conditional_copies is __ortcopy_has_factory else conditional_copies
        __ortcopy_dict['from_cache'] = from_cache
    return __init__


# ortcopy_doctor.report.core.Summary
def _make_86(__ortcopy_factory13, __ortcopy_has_factory):
    def __init__(__ortcopy_self, copies_per_run, bytes_per_run, feed_copies, fetch_copies, memcpy_nodes, in_kernel_transfers, removable_by_binding, nodes_by_provider, fallback_nodes, median_run_ms, p10_run_ms, p90_run_ms, memcpy_node_time_us_per_run, findings_by_severity=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['copies_per_run'] = copies_per_run
        __ortcopy_dict['bytes_per_run'] = bytes_per_run
        __ortcopy_dict['feed_copies'] = feed_copies
        __ortcopy_dict['fetch_copies'] = fetch_copies
        __ortcopy_dict['memcpy_nodes'] = memcpy_nodes
        __ortcopy_dict['in_kernel_transfers'] = in_kernel_transfers
        __ortcopy_dict['removable_by_binding'] = removable_by_binding
        __ortcopy_dict['nodes_by_provider'] = nodes_by_provider
        __ortcopy_dict['fallback_nodes'] = fallback_nodes
        __ortcopy_dict['median_run_ms'] = median_run_ms
        __ortcopy_dict['p10_run_ms'] = p10_run_ms
        __ortcopy_dict['p90_run_ms'] = p90_run_ms
        __ortcopy_dict['memcpy_node_time_us_per_run'] = memcpy_node_time_us_per_run
        __ortcopy_dict['findings_by_severity'] = __ortcopy_factory13() if findings_by_severity is __ortcopy_has_factory else findings_by_severity
    return __init__


# ortcopy_doctor.report.gate.Gate
def _make_87(__ortcopy_default0, __ortcopy_default1, __ortcopy_default3, __ortcopy_factory2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, fail_on=__ortcopy_default0, max_transfer_bytes=__ortcopy_default1, allow=__ortcopy_has_factory, fail_on_gain=__ortcopy_default3) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['fail_on'] = fail_on
        __ortcopy_dict['max_transfer_bytes'] = max_transfer_bytes
        __ortcopy_dict['allow'] = __ortcopy_factory2() if allow is __ortcopy_has_factory else allow
        __ortcopy_dict['fail_on_gain'] = fail_on_gain
    return __init__


# ortcopy_doctor.report.gate.GateResult
def _make_88(__ortcopy_factory3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, failed, reasons, allowed, notes=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['failed'] = failed
        __ortcopy_dict['reasons'] = reasons
        __ortcopy_dict['allowed'] = allowed
        __ortcopy_dict['notes'] = __ortcopy_factory3() if notes is __ortcopy_has_factory else notes
    return __init__


# ortcopy_doctor.report.recommend.Advice
def _make_89(__ortcopy_default1, __ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default15, __ortcopy_default17, __ortcopy_default18, __ortcopy_default19, __ortcopy_default2, __ortcopy_default20, __ortcopy_default22, __ortcopy_default23, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory14, __ortcopy_factory16, __ortcopy_factory21, __ortcopy_factory24, __ortcopy_has_factory):
    def __init__(__ortcopy_self, status, recommended=__ortcopy_default1, recommended_label=__ortcopy_default2, reason=__ortcopy_default3, headline=__ortcopy_default4, current_ms=__ortcopy_default5, best_ms=__ortcopy_default6, speedup=__ortcopy_default7, speedup_ci_low=__ortcopy_default8, speedup_ci_high=__ortcopy_default9, ci_level=__ortcopy_default10, ci_method=__ortcopy_default11, copies_removed=__ortcopy_default12, bytes_removed=__ortcopy_default13, needs=__ortcopy_has_factory, cuda_graph_ready=__ortcopy_default15, cuda_graph_blockers=__ortcopy_has_factory, cuda_graph_vs_plan=__ortcopy_default17, host_jitter=__ortcopy_default18, code=__ortcopy_default19, code_check=__ortcopy_default20, notes=__ortcopy_has_factory, runs=__ortcopy_default22, stop_reason=__ortcopy_default23, variants=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['status'] = status
        __ortcopy_dict['recommended'] = recommended
        __ortcopy_dict['recommended_label'] = recommended_label
        __ortcopy_dict['reason'] = reason
        __ortcopy_dict['headline'] = headline
        __ortcopy_dict['current_ms'] = current_ms
        __ortcopy_dict['best_ms'] = best_ms
        __ortcopy_dict['speedup'] = speedup
        __ortcopy_dict['speedup_ci_low'] = speedup_ci_low
        __ortcopy_dict['speedup_ci_high'] = speedup_ci_high
        __ortcopy_dict['ci_level'] = ci_level
        __ortcopy_dict['ci_method'] = ci_method
        __ortcopy_dict['copies_removed'] = copies_removed
        __ortcopy_dict['bytes_removed'] = bytes_removed
        __ortcopy_dict['needs'] = __ortcopy_factory14() if needs is __ortcopy_has_factory else needs
        __ortcopy_dict['cuda_graph_ready'] = cuda_graph_ready
        __ortcopy_dict['cuda_graph_blockers'] = __ortcopy_factory16() if cuda_graph_blockers is __ortcopy_has_factory else cuda_graph_blockers
        __ortcopy_dict['cuda_graph_vs_plan'] = cuda_graph_vs_plan
        __ortcopy_dict['host_jitter'] = host_jitter
        __ortcopy_dict['code'] = code
        __ortcopy_dict['code_check'] = code_check
        __ortcopy_dict['notes'] = __ortcopy_factory21() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['stop_reason'] = stop_reason
        __ortcopy_dict['variants'] = __ortcopy_factory24() if variants is __ortcopy_has_factory else variants
    return __init__


# ortcopy_doctor.report.recommend.VariantAdvice
def _make_90(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default15, __ortcopy_default16, __ortcopy_default17, __ortcopy_default3, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory18, __ortcopy_has_factory):
    def __init__(__ortcopy_self, variant, label, ran, runs=__ortcopy_default3, skipped_reason=__ortcopy_default4, median_ms=__ortcopy_default5, median_ci_low_ms=__ortcopy_default6, median_ci_high_ms=__ortcopy_default7, speedup=__ortcopy_default8, speedup_ci_low=__ortcopy_default9, speedup_ci_high=__ortcopy_default10, verdict=__ortcopy_default11, gpu_median_ms=__ortcopy_default12, gpu_speedup=__ortcopy_default13, gpu_speedup_ci_low=__ortcopy_default14, gpu_speedup_ci_high=__ortcopy_default15, copies_per_run=__ortcopy_default16, bytes_per_run=__ortcopy_default17, needs=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['variant'] = variant
        __ortcopy_dict['label'] = label
        __ortcopy_dict['ran'] = ran
        __ortcopy_dict['runs'] = runs
        __ortcopy_dict['skipped_reason'] = skipped_reason
        __ortcopy_dict['median_ms'] = median_ms
        __ortcopy_dict['median_ci_low_ms'] = median_ci_low_ms
        __ortcopy_dict['median_ci_high_ms'] = median_ci_high_ms
        __ortcopy_dict['speedup'] = speedup
        __ortcopy_dict['speedup_ci_low'] = speedup_ci_low
        __ortcopy_dict['speedup_ci_high'] = speedup_ci_high
        __ortcopy_dict['verdict'] = verdict
        __ortcopy_dict['gpu_median_ms'] = gpu_median_ms
        __ortcopy_dict['gpu_speedup'] = gpu_speedup
        __ortcopy_dict['gpu_speedup_ci_low'] = gpu_speedup_ci_low
        __ortcopy_dict['gpu_speedup_ci_high'] = gpu_speedup_ci_high
        __ortcopy_dict['copies_per_run'] = copies_per_run
        __ortcopy_dict['bytes_per_run'] = bytes_per_run
        __ortcopy_dict['needs'] = __ortcopy_factory18() if needs is __ortcopy_has_factory else needs
    return __init__


# ortcopy_doctor.report.variants.Blocker
def _make_91(__ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, subject, detail) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['subject'] = subject
        __ortcopy_dict['detail'] = detail
    return __init__


# ortcopy_doctor.report.variants.Comparison
def _make_92(__ortcopy_default1, __ortcopy_default2, __ortcopy_default3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, verdict, delta_ms=__ortcopy_default1, text=__ortcopy_default2, ci=__ortcopy_default3) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['verdict'] = verdict
        __ortcopy_dict['delta_ms'] = delta_ms
        __ortcopy_dict['text'] = text
        __ortcopy_dict['ci'] = ci
    return __init__


# ortcopy_doctor.rules.registry.Rule
def _make_93(__ortcopy_default4, __ortcopy_default5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, id, slug, severity, title, location=__ortcopy_default4, help=__ortcopy_default5) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['id'] = id
        __ortcopy_dict['slug'] = slug
        __ortcopy_dict['severity'] = severity
        __ortcopy_dict['title'] = title
        __ortcopy_dict['location'] = location
        __ortcopy_dict['help'] = help
    return __init__


# ortcopy_doctor.rules.registry.RuleContext
def _make_94(__ortcopy_default3, __ortcopy_default4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, evidence, copies, graph, census=__ortcopy_default3, binding=__ortcopy_default4) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['evidence'] = evidence
        __ortcopy_dict['copies'] = copies
        __ortcopy_dict['graph'] = graph
        __ortcopy_dict['census'] = census
        __ortcopy_dict['binding'] = binding
    return __init__


# ortcopy_doctor.rules.registry._Entry
def _make_95(__ortcopy_has_factory):
    def __init__(__ortcopy_self, rule, check) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['rule'] = rule
        __ortcopy_dict['check'] = check
    return __init__


# ortcopy_doctor.watch.observations.BindRecords
def _make_96(__ortcopy_factory2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, method, name, records=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['method'] = method
        __ortcopy_dict['name'] = name
        __ortcopy_dict['records'] = __ortcopy_factory2() if records is __ortcopy_has_factory else records
    return __init__


# ortcopy_doctor.watch.observations.CallObservation
def _make_97(__ortcopy_default10, __ortcopy_default4, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory2, __ortcopy_factory3, __ortcopy_factory5, __ortcopy_factory6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, index, method, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, traced=__ortcopy_default4, records=__ortcopy_has_factory, bind_records=__ortcopy_has_factory, start_ns=__ortcopy_default7, end_ns=__ortcopy_default8, error=__ortcopy_default9, profile=__ortcopy_default10) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['index'] = index
        __ortcopy_dict['method'] = method
        __ortcopy_dict['inputs'] = __ortcopy_factory2() if inputs is __ortcopy_has_factory else inputs
        __ortcopy_dict['outputs'] = __ortcopy_factory3() if outputs is __ortcopy_has_factory else outputs
        __ortcopy_dict['traced'] = traced
        __ortcopy_dict['records'] = __ortcopy_factory5() if records is __ortcopy_has_factory else records
        __ortcopy_dict['bind_records'] = __ortcopy_factory6() if bind_records is __ortcopy_has_factory else bind_records
        __ortcopy_dict['start_ns'] = start_ns
        __ortcopy_dict['end_ns'] = end_ns
        __ortcopy_dict['error'] = error
        __ortcopy_dict['profile'] = profile
    return __init__


# ortcopy_doctor.watch.observations.CallProfile
def _make_98(__ortcopy_factory1, __ortcopy_has_factory):
    def __init__(__ortcopy_self, run_dur_us, memcpy_nodes=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['run_dur_us'] = run_dur_us
        __ortcopy_dict['memcpy_nodes'] = __ortcopy_factory1() if memcpy_nodes is __ortcopy_has_factory else memcpy_nodes
    return __init__


# ortcopy_doctor.watch.observations.ModelTransferSite
def _make_99(__ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, direction, node, op_type, tensor, cause) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['node'] = node
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['cause'] = cause
    return __init__


# ortcopy_doctor.watch.observations.Placement
def _make_100(__ortcopy_default2, __ortcopy_factory3, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_factory6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, source, provider, detail=__ortcopy_default2, inputs_on_device=__ortcopy_has_factory, inputs_on_host=__ortcopy_has_factory, outputs_on_device=__ortcopy_has_factory, outputs_on_host=__ortcopy_has_factory, model_sites=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['source'] = source
        __ortcopy_dict['provider'] = provider
        __ortcopy_dict['detail'] = detail
        __ortcopy_dict['inputs_on_device'] = __ortcopy_factory3() if inputs_on_device is __ortcopy_has_factory else inputs_on_device
        __ortcopy_dict['inputs_on_host'] = __ortcopy_factory4() if inputs_on_host is __ortcopy_has_factory else inputs_on_host
        __ortcopy_dict['outputs_on_device'] = __ortcopy_factory5() if outputs_on_device is __ortcopy_has_factory else outputs_on_device
        __ortcopy_dict['outputs_on_host'] = __ortcopy_factory6() if outputs_on_host is __ortcopy_has_factory else outputs_on_host
        __ortcopy_dict['model_sites'] = __ortcopy_factory7() if model_sites is __ortcopy_has_factory else model_sites
    return __init__


# ortcopy_doctor.watch.observations.ProfileMemcpy
def _make_101(__ortcopy_has_factory):
    def __init__(__ortcopy_self, name, op_type, bytes, dur_us) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['op_type'] = op_type
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['dur_us'] = dur_us
    return __init__


# ortcopy_doctor.watch.observations.TensorUse
def _make_102(__ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, role, via, device, bytes=__ortcopy_default4, shape=__ortcopy_default5, dtype=__ortcopy_default6, is_tensor=__ortcopy_default7, fresh=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['role'] = role
        __ortcopy_dict['via'] = via
        __ortcopy_dict['device'] = device
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['dtype'] = dtype
        __ortcopy_dict['is_tensor'] = is_tensor
        __ortcopy_dict['fresh'] = fresh
    return __init__


# ortcopy_doctor.watch.observations.WatchObservations
def _make_103(__ortcopy_default0, __ortcopy_default1, __ortcopy_default10, __ortcopy_default2, __ortcopy_default3, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory11, __ortcopy_factory12, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_factory6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, format=__ortcopy_default0, format_version=__ortcopy_default1, ort_version=__ortcopy_default2, model=__ortcopy_default3, active_providers=__ortcopy_has_factory, requested_providers=__ortcopy_has_factory, placement=__ortcopy_has_factory, predicted_placement=__ortcopy_default7, census_backend=__ortcopy_default8, census_note=__ortcopy_default9, profile_note=__ortcopy_default10, calls=__ortcopy_has_factory, notes=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['format'] = format
        __ortcopy_dict['format_version'] = format_version
        __ortcopy_dict['ort_version'] = ort_version
        __ortcopy_dict['model'] = model
        __ortcopy_dict['active_providers'] = __ortcopy_factory4() if active_providers is __ortcopy_has_factory else active_providers
        __ortcopy_dict['requested_providers'] = __ortcopy_factory5() if requested_providers is __ortcopy_has_factory else requested_providers
        __ortcopy_dict['placement'] = __ortcopy_factory6() if placement is __ortcopy_has_factory else placement
        __ortcopy_dict['predicted_placement'] = predicted_placement
        __ortcopy_dict['census_backend'] = census_backend
        __ortcopy_dict['census_note'] = census_note
        __ortcopy_dict['profile_note'] = profile_note
        __ortcopy_dict['calls'] = __ortcopy_factory11() if calls is __ortcopy_has_factory else calls
        __ortcopy_dict['notes'] = __ortcopy_factory12() if notes is __ortcopy_has_factory else notes
    return __init__


# ortcopy_doctor.watch.pipeline.Download
def _make_104(__ortcopy_has_factory):
    def __init__(__ortcopy_self, seq, output, device, bytes, at_ns) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['seq'] = seq
        __ortcopy_dict['output'] = output
        __ortcopy_dict['device'] = device
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['at_ns'] = at_ns
    return __init__


# ortcopy_doctor.watch.pipeline.HandOff
def _make_105(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default15, __ortcopy_default16, __ortcopy_default8, __ortcopy_default9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, producer, output, consumer, input, calls, how, state, kind, d2h_bytes_per_call=__ortcopy_default8, h2d_bytes_per_call=__ortcopy_default9, basis=__ortcopy_default10, census_d2h=__ortcopy_default11, census_h2d=__ortcopy_default12, host_ms_between=__ortcopy_default13, message=__ortcopy_default14, fix=__ortcopy_default15, code=__ortcopy_default16) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['producer'] = producer
        __ortcopy_dict['output'] = output
        __ortcopy_dict['consumer'] = consumer
        __ortcopy_dict['input'] = input
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['how'] = how
        __ortcopy_dict['state'] = state
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['d2h_bytes_per_call'] = d2h_bytes_per_call
        __ortcopy_dict['h2d_bytes_per_call'] = h2d_bytes_per_call
        __ortcopy_dict['basis'] = basis
        __ortcopy_dict['census_d2h'] = census_d2h
        __ortcopy_dict['census_h2d'] = census_h2d
        __ortcopy_dict['host_ms_between'] = host_ms_between
        __ortcopy_dict['message'] = message
        __ortcopy_dict['fix'] = fix
        __ortcopy_dict['code'] = code
    return __init__


# ortcopy_doctor.watch.pipeline.HandoffCode
def _make_106(__ortcopy_default5, __ortcopy_default6, __ortcopy_default8, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, kind, code, sessions, given, results, producer=__ortcopy_default5, consumer=__ortcopy_default6, pairs=__ortcopy_has_factory, stream=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['code'] = code
        __ortcopy_dict['sessions'] = sessions
        __ortcopy_dict['given'] = given
        __ortcopy_dict['results'] = results
        __ortcopy_dict['producer'] = producer
        __ortcopy_dict['consumer'] = consumer
        __ortcopy_dict['pairs'] = __ortcopy_factory7() if pairs is __ortcopy_has_factory else pairs
        __ortcopy_dict['stream'] = stream
    return __init__


# ortcopy_doctor.watch.pipeline.HostEdge
def _make_107(__ortcopy_has_factory):
    def __init__(__ortcopy_self, session, tensor, direction, calls, bytes_per_call, basis) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['session'] = session
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['bytes_per_call'] = bytes_per_call
        __ortcopy_dict['basis'] = basis
    return __init__


# ortcopy_doctor.watch.pipeline.Pipeline
def _make_108(__ortcopy_default10, __ortcopy_default11, __ortcopy_default12, __ortcopy_default13, __ortcopy_default14, __ortcopy_default15, __ortcopy_default17, __ortcopy_default21, __ortcopy_default22, __ortcopy_default23, __ortcopy_default24, __ortcopy_factory16, __ortcopy_factory18, __ortcopy_factory19, __ortcopy_factory20, __ortcopy_has_factory):
    def __init__(__ortcopy_self, sessions, iterations, round_trips, state, on_device, host_hand_offs, uploads, downloads, stages, iteration_ms, code=__ortcopy_default10, timing_note=__ortcopy_default11, code_check=__ortcopy_default12, head=__ortcopy_default13, head_site=__ortcopy_default14, stage_iterations=__ortcopy_default15, first_iteration=__ortcopy_has_factory, first_iteration_ms=__ortcopy_default17, before_loop=__ortcopy_has_factory, after_loop=__ortcopy_has_factory, new_shapes=__ortcopy_has_factory, h2d_bytes_per_iteration=__ortcopy_default21, d2h_bytes_per_iteration=__ortcopy_default22, bytes_predicted=__ortcopy_default23, largest_cost=__ortcopy_default24) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['sessions'] = sessions
        __ortcopy_dict['iterations'] = iterations
        __ortcopy_dict['round_trips'] = round_trips
        __ortcopy_dict['state'] = state
        __ortcopy_dict['on_device'] = on_device
        __ortcopy_dict['host_hand_offs'] = host_hand_offs
        __ortcopy_dict['uploads'] = uploads
        __ortcopy_dict['downloads'] = downloads
        __ortcopy_dict['stages'] = stages
        __ortcopy_dict['iteration_ms'] = iteration_ms
        __ortcopy_dict['code'] = code
        __ortcopy_dict['timing_note'] = timing_note
        __ortcopy_dict['code_check'] = code_check
        __ortcopy_dict['head'] = head
        __ortcopy_dict['head_site'] = head_site
        __ortcopy_dict['stage_iterations'] = stage_iterations
        __ortcopy_dict['first_iteration'] = __ortcopy_factory16() if first_iteration is __ortcopy_has_factory else first_iteration
        __ortcopy_dict['first_iteration_ms'] = first_iteration_ms
        __ortcopy_dict['before_loop'] = __ortcopy_factory18() if before_loop is __ortcopy_has_factory else before_loop
        __ortcopy_dict['after_loop'] = __ortcopy_factory19() if after_loop is __ortcopy_has_factory else after_loop
        __ortcopy_dict['new_shapes'] = __ortcopy_factory20() if new_shapes is __ortcopy_has_factory else new_shapes
        __ortcopy_dict['h2d_bytes_per_iteration'] = h2d_bytes_per_iteration
        __ortcopy_dict['d2h_bytes_per_iteration'] = d2h_bytes_per_iteration
        __ortcopy_dict['bytes_predicted'] = bytes_predicted
        __ortcopy_dict['largest_cost'] = largest_cost
    return __init__


# ortcopy_doctor.watch.pipeline.PipelineCall
def _make_109(__ortcopy_default10, __ortcopy_default13, __ortcopy_default14, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory11, __ortcopy_factory12, __ortcopy_has_factory):
    def __init__(__ortcopy_self, seq, session, call, method, wrap_start_ns=__ortcopy_default4, wrap_end_ns=__ortcopy_default5, overhead_start_ns=__ortcopy_default6, overhead_end_ns=__ortcopy_default7, start_ns=__ortcopy_default8, end_ns=__ortcopy_default9, bind_ns=__ortcopy_default10, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, error=__ortcopy_default13, site=__ortcopy_default14) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['seq'] = seq
        __ortcopy_dict['session'] = session
        __ortcopy_dict['call'] = call
        __ortcopy_dict['method'] = method
        __ortcopy_dict['wrap_start_ns'] = wrap_start_ns
        __ortcopy_dict['wrap_end_ns'] = wrap_end_ns
        __ortcopy_dict['overhead_start_ns'] = overhead_start_ns
        __ortcopy_dict['overhead_end_ns'] = overhead_end_ns
        __ortcopy_dict['start_ns'] = start_ns
        __ortcopy_dict['end_ns'] = end_ns
        __ortcopy_dict['bind_ns'] = bind_ns
        __ortcopy_dict['inputs'] = __ortcopy_factory11() if inputs is __ortcopy_has_factory else inputs
        __ortcopy_dict['outputs'] = __ortcopy_factory12() if outputs is __ortcopy_has_factory else outputs
        __ortcopy_dict['error'] = error
        __ortcopy_dict['site'] = site
    return __init__


# ortcopy_doctor.watch.pipeline.PipelineObservations
def _make_110(__ortcopy_default0, __ortcopy_default1, __ortcopy_default2, __ortcopy_default4, __ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_factory10, __ortcopy_factory11, __ortcopy_factory12, __ortcopy_factory13, __ortcopy_factory14, __ortcopy_factory15, __ortcopy_factory16, __ortcopy_factory3, __ortcopy_has_factory):
    def __init__(__ortcopy_self, format=__ortcopy_default0, format_version=__ortcopy_default1, ort_version=__ortcopy_default2, program=__ortcopy_has_factory, exit_code=__ortcopy_default4, ended_by=__ortcopy_default5, error=__ortcopy_default6, started_ns=__ortcopy_default7, ended_ns=__ortcopy_default8, census_requested=__ortcopy_default9, sessions=__ortcopy_has_factory, calls=__ortcopy_has_factory, downloads=__ortcopy_has_factory, libraries=__ortcopy_has_factory, notes=__ortcopy_has_factory, code_checks=__ortcopy_has_factory, device_status=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['format'] = format
        __ortcopy_dict['format_version'] = format_version
        __ortcopy_dict['ort_version'] = ort_version
        __ortcopy_dict['program'] = __ortcopy_factory3() if program is __ortcopy_has_factory else program
        __ortcopy_dict['exit_code'] = exit_code
        __ortcopy_dict['ended_by'] = ended_by
        __ortcopy_dict['error'] = error
        __ortcopy_dict['started_ns'] = started_ns
        __ortcopy_dict['ended_ns'] = ended_ns
        __ortcopy_dict['census_requested'] = census_requested
        __ortcopy_dict['sessions'] = __ortcopy_factory10() if sessions is __ortcopy_has_factory else sessions
        __ortcopy_dict['calls'] = __ortcopy_factory11() if calls is __ortcopy_has_factory else calls
        __ortcopy_dict['downloads'] = __ortcopy_factory12() if downloads is __ortcopy_has_factory else downloads
        __ortcopy_dict['libraries'] = __ortcopy_factory13() if libraries is __ortcopy_has_factory else libraries
        __ortcopy_dict['notes'] = __ortcopy_factory14() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['code_checks'] = __ortcopy_factory15() if code_checks is __ortcopy_has_factory else code_checks
        __ortcopy_dict['device_status'] = __ortcopy_factory16() if device_status is __ortcopy_has_factory else device_status
    return __init__


# ortcopy_doctor.watch.pipeline.PipelineReport
def _make_111(__ortcopy_default9, __ortcopy_factory10, __ortcopy_has_factory):
    def __init__(__ortcopy_self, program, exit_code, ended_by, error, sessions, pipelines, observed, not_observed, notes, observations=__ortcopy_default9, providers=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['program'] = program
        __ortcopy_dict['exit_code'] = exit_code
        __ortcopy_dict['ended_by'] = ended_by
        __ortcopy_dict['error'] = error
        __ortcopy_dict['sessions'] = sessions
        __ortcopy_dict['pipelines'] = pipelines
        __ortcopy_dict['observed'] = observed
        __ortcopy_dict['not_observed'] = not_observed
        __ortcopy_dict['notes'] = notes
        __ortcopy_dict['observations'] = observations
        __ortcopy_dict['providers'] = __ortcopy_factory10() if providers is __ortcopy_has_factory else providers
    return __init__


# ortcopy_doctor.watch.pipeline.ProviderFinding
def _make_112(__ortcopy_has_factory):
    def __init__(__ortcopy_self, session, created_at, available, cause, fix) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['session'] = session
        __ortcopy_dict['created_at'] = created_at
        __ortcopy_dict['available'] = available
        __ortcopy_dict['cause'] = cause
        __ortcopy_dict['fix'] = fix
    return __init__


# ortcopy_doctor.watch.pipeline.SessionRecord
def _make_113(__ortcopy_default3, __ortcopy_factory4, __ortcopy_factory5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, label, model, observations, created_at=__ortcopy_default3, available_providers=__ortcopy_has_factory, provider_failures=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['label'] = label
        __ortcopy_dict['model'] = model
        __ortcopy_dict['observations'] = observations
        __ortcopy_dict['created_at'] = created_at
        __ortcopy_dict['available_providers'] = __ortcopy_factory4() if available_providers is __ortcopy_has_factory else available_providers
        __ortcopy_dict['provider_failures'] = __ortcopy_factory5() if provider_failures is __ortcopy_has_factory else provider_failures
    return __init__


# ortcopy_doctor.watch.pipeline.SessionSummary
def _make_114(__ortcopy_has_factory):
    def __init__(__ortcopy_self, label, model, providers, calls, placement, census, user_transfers) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['label'] = label
        __ortcopy_dict['model'] = model
        __ortcopy_dict['providers'] = providers
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['placement'] = placement
        __ortcopy_dict['census'] = census
        __ortcopy_dict['user_transfers'] = user_transfers
    return __init__


# ortcopy_doctor.watch.pipeline.ShapeCall
def _make_115(__ortcopy_default7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, session, shape, iteration, site, ms, later_median_ms, later_calls, steady_median_ms=__ortcopy_default7) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['session'] = session
        __ortcopy_dict['shape'] = shape
        __ortcopy_dict['iteration'] = iteration
        __ortcopy_dict['site'] = site
        __ortcopy_dict['ms'] = ms
        __ortcopy_dict['later_median_ms'] = later_median_ms
        __ortcopy_dict['later_calls'] = later_calls
        __ortcopy_dict['steady_median_ms'] = steady_median_ms
    return __init__


# ortcopy_doctor.watch.pipeline.StageRow
def _make_116(__ortcopy_default5, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, stage, kind, calls, median_ms, total_ms, note=__ortcopy_default5, per_iteration_ms=__ortcopy_default6, site=__ortcopy_default7, before_site=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['stage'] = stage
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['median_ms'] = median_ms
        __ortcopy_dict['total_ms'] = total_ms
        __ortcopy_dict['note'] = note
        __ortcopy_dict['per_iteration_ms'] = per_iteration_ms
        __ortcopy_dict['site'] = site
        __ortcopy_dict['before_site'] = before_site
    return __init__


# ortcopy_doctor.watch.pipeline.ValueInfo
def _make_117(__ortcopy_default4, __ortcopy_default5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, role, kind, device, bytes=__ortcopy_default4, link=__ortcopy_default5) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['role'] = role
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['device'] = device
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['link'] = link
    return __init__


# ortcopy_doctor.watch.pipeline.ValueLink
def _make_118(__ortcopy_has_factory):
    def __init__(__ortcopy_self, seq, output, how) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['seq'] = seq
        __ortcopy_dict['output'] = output
        __ortcopy_dict['how'] = how
    return __init__


# ortcopy_doctor.watch.program.Target
def _make_119(__ortcopy_default3, __ortcopy_factory4, __ortcopy_has_factory):
    def __init__(__ortcopy_self, script, module, argv, interpreter=__ortcopy_default3, args=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['script'] = script
        __ortcopy_dict['module'] = module
        __ortcopy_dict['argv'] = argv
        __ortcopy_dict['interpreter'] = interpreter
        __ortcopy_dict['args'] = __ortcopy_factory4() if args is __ortcopy_has_factory else args
    return __init__


# ortcopy_doctor.watch.program._Produced
def _make_120(__ortcopy_default10, __ortcopy_default9, __ortcopy_factory11, __ortcopy_has_factory):
    def __init__(__ortcopy_self, seq, output, obj, root_id, ptr, nbytes, host, digest, device, how=__ortcopy_default9, alias=__ortcopy_default10, derived=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['seq'] = seq
        __ortcopy_dict['output'] = output
        __ortcopy_dict['obj'] = obj
        __ortcopy_dict['root_id'] = root_id
        __ortcopy_dict['ptr'] = ptr
        __ortcopy_dict['nbytes'] = nbytes
        __ortcopy_dict['host'] = host
        __ortcopy_dict['digest'] = digest
        __ortcopy_dict['device'] = device
        __ortcopy_dict['how'] = how
        __ortcopy_dict['alias'] = alias
        __ortcopy_dict['derived'] = __ortcopy_factory11() if derived is __ortcopy_has_factory else derived
    return __init__


# ortcopy_doctor.watch.recorder._BindingState
def _make_121(__ortcopy_factory0, __ortcopy_factory1, __ortcopy_factory2, __ortcopy_has_factory):
    def __init__(__ortcopy_self, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, pending=__ortcopy_has_factory) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['inputs'] = __ortcopy_factory0() if inputs is __ortcopy_has_factory else inputs
        __ortcopy_dict['outputs'] = __ortcopy_factory1() if outputs is __ortcopy_has_factory else outputs
        __ortcopy_dict['pending'] = __ortcopy_factory2() if pending is __ortcopy_has_factory else pending
    return __init__


# ortcopy_doctor.watch.recorder._Instrumentation
def _make_122(__ortcopy_default6, __ortcopy_factory5, __ortcopy_has_factory):
    def __init__(__ortcopy_self, requested_providers, runtime_graph, ep_failures, profiling, workdir, notes=__ortcopy_has_factory, profile_ended=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['requested_providers'] = requested_providers
        __ortcopy_dict['runtime_graph'] = runtime_graph
        __ortcopy_dict['ep_failures'] = ep_failures
        __ortcopy_dict['profiling'] = profiling
        __ortcopy_dict['workdir'] = workdir
        __ortcopy_dict['notes'] = __ortcopy_factory5() if notes is __ortcopy_has_factory else notes
        __ortcopy_dict['profile_ended'] = profile_ended
    return __init__


# ortcopy_doctor.watch.report.CallReport
def _make_123(__ortcopy_default5, __ortcopy_default8, __ortcopy_factory6, __ortcopy_factory7, __ortcopy_has_factory):
    def __init__(__ortcopy_self, index, method, inputs, outputs, transfers, census=__ortcopy_default5, discrepancies=__ortcopy_has_factory, fixes=__ortcopy_has_factory, error=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['index'] = index
        __ortcopy_dict['method'] = method
        __ortcopy_dict['inputs'] = inputs
        __ortcopy_dict['outputs'] = outputs
        __ortcopy_dict['transfers'] = transfers
        __ortcopy_dict['census'] = census
        __ortcopy_dict['discrepancies'] = __ortcopy_factory6() if discrepancies is __ortcopy_has_factory else discrepancies
        __ortcopy_dict['fixes'] = __ortcopy_factory7() if fixes is __ortcopy_has_factory else fixes
        __ortcopy_dict['error'] = error
    return __init__


# ortcopy_doctor.watch.report.TensorReport
def _make_124(__ortcopy_default5, __ortcopy_default6, __ortcopy_has_factory):
    def __init__(__ortcopy_self, name, role, via, device, needed_on, transfer=__ortcopy_default5, bytes=__ortcopy_default6) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['name'] = name
        __ortcopy_dict['role'] = role
        __ortcopy_dict['via'] = via
        __ortcopy_dict['device'] = device
        __ortcopy_dict['needed_on'] = needed_on
        __ortcopy_dict['transfer'] = transfer
        __ortcopy_dict['bytes'] = bytes
    return __init__


# ortcopy_doctor.watch.report.Transfer
def _make_125(__ortcopy_default10, __ortcopy_default11, __ortcopy_default6, __ortcopy_default7, __ortcopy_default8, __ortcopy_default9, __ortcopy_has_factory):
    def __init__(__ortcopy_self, call, kind, direction, tensor, bytes, basis, phase=__ortcopy_default6, node=__ortcopy_default7, src_kind=__ortcopy_default8, dst_kind=__ortcopy_default9, cause=__ortcopy_default10, fix=__ortcopy_default11) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['call'] = call
        __ortcopy_dict['kind'] = kind
        __ortcopy_dict['direction'] = direction
        __ortcopy_dict['tensor'] = tensor
        __ortcopy_dict['bytes'] = bytes
        __ortcopy_dict['basis'] = basis
        __ortcopy_dict['phase'] = phase
        __ortcopy_dict['node'] = node
        __ortcopy_dict['src_kind'] = src_kind
        __ortcopy_dict['dst_kind'] = dst_kind
        __ortcopy_dict['cause'] = cause
        __ortcopy_dict['fix'] = fix
    return __init__


# ortcopy_doctor.watch.report.WatchReport
def _make_126(__ortcopy_default7, __ortcopy_default8, __ortcopy_has_factory):
    def __init__(__ortcopy_self, calls, providers, placement_source, placement_detail, observed, not_observed, notes, predicted=__ortcopy_default7, observations=__ortcopy_default8) -> None:
        __ortcopy_dict = __ortcopy_self.__dict__
        __ortcopy_dict['calls'] = calls
        __ortcopy_dict['providers'] = providers
        __ortcopy_dict['placement_source'] = placement_source
        __ortcopy_dict['placement_detail'] = placement_detail
        __ortcopy_dict['observed'] = observed
        __ortcopy_dict['not_observed'] = not_observed
        __ortcopy_dict['notes'] = notes
        __ortcopy_dict['predicted'] = predicted
        __ortcopy_dict['observations'] = observations
    return __init__


INITS = {
    "def __init__(__ortcopy_self, run, kind, direction, bytes, src_kind, dst_kind, duration_ns, node=__ortcopy_default7, op_type=__ortcopy_default8, tensor=__ortcopy_default9, confirms=__ortcopy_default10, at_us=__ortcopy_default11, placed_by=__ortcopy_default12, correlation_id=__ortcopy_default13, boundary_us=__ortcopy_default14) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['run'] = run\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['src_kind'] = src_kind\n    __ortcopy_dict['dst_kind'] = dst_kind\n    __ortcopy_dict['duration_ns'] = duration_ns\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['confirms'] = confirms\n    __ortcopy_dict['at_us'] = at_us\n    __ortcopy_dict['placed_by'] = placed_by\n    __ortcopy_dict['correlation_id'] = correlation_id\n    __ortcopy_dict['boundary_us'] = boundary_us\n": (_make_0, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, direction, host_kind, count, bytes, duration_ns, gb_per_s, largest_bytes, largest_gb_per_s) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['host_kind'] = host_kind\n    __ortcopy_dict['count'] = count\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['duration_ns'] = duration_ns\n    __ortcopy_dict['gb_per_s'] = gb_per_s\n    __ortcopy_dict['largest_bytes'] = largest_bytes\n    __ortcopy_dict['largest_gb_per_s'] = largest_gb_per_s\n": (_make_1, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, backend, backend_version, traced_runs, clock_offset_ns, clock_verified, transfers, runs, per_run, groups, bandwidth, checks, attributed_share, overhead=__ortcopy_default12, notes=__ortcopy_has_factory, clock_error_ns=__ortcopy_default14, boundary_tolerance_us=__ortcopy_default15) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['backend'] = backend\n    __ortcopy_dict['backend_version'] = backend_version\n    __ortcopy_dict['traced_runs'] = traced_runs\n    __ortcopy_dict['clock_offset_ns'] = clock_offset_ns\n    __ortcopy_dict['clock_verified'] = clock_verified\n    __ortcopy_dict['transfers'] = transfers\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['per_run'] = per_run\n    __ortcopy_dict['groups'] = groups\n    __ortcopy_dict['bandwidth'] = bandwidth\n    __ortcopy_dict['checks'] = checks\n    __ortcopy_dict['attributed_share'] = attributed_share\n    __ortcopy_dict['overhead'] = overhead\n    __ortcopy_dict['notes'] = __ortcopy_factory13() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['clock_error_ns'] = clock_error_ns\n    __ortcopy_dict['boundary_tolerance_us'] = boundary_tolerance_us\n": (_make_2, ('__ortcopy_default12', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_factory13', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, count=__ortcopy_default0, bytes=__ortcopy_default1, duration_ns=__ortcopy_default2, share_of_run=__ortcopy_default3) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['count'] = count\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['duration_ns'] = duration_ns\n    __ortcopy_dict['share_of_run'] = share_of_run\n": (_make_3, ('__ortcopy_default0', '__ortcopy_default1', '__ortcopy_default2', '__ortcopy_default3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, check, subject, run, expected, observed, ok, detail=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['check'] = check\n    __ortcopy_dict['subject'] = subject\n    __ortcopy_dict['run'] = run\n    __ortcopy_dict['expected'] = expected\n    __ortcopy_dict['observed'] = observed\n    __ortcopy_dict['ok'] = ok\n    __ortcopy_dict['detail'] = detail\n": (_make_4, ('__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, run, run_dur_us, classes=__ortcopy_has_factory, host_device_count=__ortcopy_default3, host_device_bytes=__ortcopy_default4) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['run'] = run\n    __ortcopy_dict['run_dur_us'] = run_dur_us\n    __ortcopy_dict['classes'] = __ortcopy_factory2() if classes is __ortcopy_has_factory else classes\n    __ortcopy_dict['host_device_count'] = host_device_count\n    __ortcopy_dict['host_device_bytes'] = host_device_bytes\n": (_make_5, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_factory2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, direction, node, op_type, tensor, confirms, src_kind, dst_kind, count_per_run, bytes_per_run, time_ns_per_run, share_of_run) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['confirms'] = confirms\n    __ortcopy_dict['src_kind'] = src_kind\n    __ortcopy_dict['dst_kind'] = dst_kind\n    __ortcopy_dict['count_per_run'] = count_per_run\n    __ortcopy_dict['bytes_per_run'] = bytes_per_run\n    __ortcopy_dict['time_ns_per_run'] = time_ns_per_run\n    __ortcopy_dict['share_of_run'] = share_of_run\n": (_make_6, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, run, kind, node=__ortcopy_default2) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['run'] = run\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['node'] = node\n": (_make_7, ('__ortcopy_default2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, role, place, dtype, shape, preallocate=__ortcopy_default5, reason=__ortcopy_default6, state_pair=__ortcopy_default7, state_basis=__ortcopy_default8, rebind=__ortcopy_default9) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['role'] = role\n    __ortcopy_dict['place'] = place\n    __ortcopy_dict['dtype'] = dtype\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['preallocate'] = preallocate\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['state_pair'] = state_pair\n    __ortcopy_dict['state_basis'] = state_basis\n    __ortcopy_dict['rebind'] = rebind\n": (_make_8, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, entries=__ortcopy_has_factory, device_type=__ortcopy_default1, device_id=__ortcopy_default2, applicable=__ortcopy_default3, reason=__ortcopy_default4, code=__ortcopy_default5, possible_state=__ortcopy_has_factory, code_check=__ortcopy_default7) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['entries'] = __ortcopy_factory0() if entries is __ortcopy_has_factory else entries\n    __ortcopy_dict['device_type'] = device_type\n    __ortcopy_dict['device_id'] = device_id\n    __ortcopy_dict['applicable'] = applicable\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['code'] = code\n    __ortcopy_dict['possible_state'] = __ortcopy_factory6() if possible_state is __ortcopy_has_factory else possible_state\n    __ortcopy_dict['code_check'] = code_check\n": (_make_9, ('__ortcopy_default1', '__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default7', '__ortcopy_factory0', '__ortcopy_factory6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, inputs, outputs) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['inputs'] = inputs\n    __ortcopy_dict['outputs'] = outputs\n": (_make_10, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, constants, shapes, by_symbol) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['constants'] = constants\n    __ortcopy_dict['shapes'] = shapes\n    __ortcopy_dict['by_symbol'] = by_symbol\n": (_make_11, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, offered, text, status=__ortcopy_default2) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['offered'] = offered\n    __ortcopy_dict['text'] = text\n    __ortcopy_dict['status'] = status\n": (_make_12, ('__ortcopy_default2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, size, symbol, comment) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['size'] = size\n    __ortcopy_dict['symbol'] = symbol\n    __ortcopy_dict['comment'] = comment\n": (_make_13, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, input, output, basis, detail=__ortcopy_default3) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['input'] = input\n    __ortcopy_dict['output'] = output\n    __ortcopy_dict['basis'] = basis\n    __ortcopy_dict['detail'] = detail\n": (_make_14, ('__ortcopy_default3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, producers, consumers, opsets) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['producers'] = producers\n    __ortcopy_dict['consumers'] = consumers\n    __ortcopy_dict['opsets'] = opsets\n": (_make_15, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, node, index) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['index'] = index\n": (_make_16, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, index, calls, stages, start_ns, end_ns=__ortcopy_default4) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['index'] = index\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['stages'] = stages\n    __ortcopy_dict['start_ns'] = start_ns\n    __ortcopy_dict['end_ns'] = end_ns\n": (_make_17, ('__ortcopy_default4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, head, sessions, iterations, before, after) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['head'] = head\n    __ortcopy_dict['sessions'] = sessions\n    __ortcopy_dict['iterations'] = iterations\n    __ortcopy_dict['before'] = before\n    __ortcopy_dict['after'] = after\n": (_make_18, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, session, start_ns, end_ns, shape=__ortcopy_default3, site=__ortcopy_default4, h2d_bytes=__ortcopy_default5, d2h_bytes=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['start_ns'] = start_ns\n    __ortcopy_dict['end_ns'] = end_ns\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['site'] = site\n    __ortcopy_dict['h2d_bytes'] = h2d_bytes\n    __ortcopy_dict['d2h_bytes'] = d2h_bytes\n": (_make_19, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, call, session, shape, ns, later_median_ns, later_calls, steady_median_ns=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['call'] = call\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['ns'] = ns\n    __ortcopy_dict['later_median_ns'] = later_median_ns\n    __ortcopy_dict['later_calls'] = later_calls\n    __ortcopy_dict['steady_median_ns'] = steady_median_ns\n": (_make_20, ('__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, start_ns, end_ns, call=__ortcopy_default3, next_call=__ortcopy_default4) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['start_ns'] = start_ns\n    __ortcopy_dict['end_ns'] = end_ns\n    __ortcopy_dict['call'] = call\n    __ortcopy_dict['next_call'] = next_call\n": (_make_21, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, session, site, before_session, before_site, count, total_ns, median_ns, per_iteration_ns) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['site'] = site\n    __ortcopy_dict['before_session'] = before_session\n    __ortcopy_dict['before_site'] = before_site\n    __ortcopy_dict['count'] = count\n    __ortcopy_dict['total_ns'] = total_ns\n    __ortcopy_dict['median_ns'] = median_ns\n    __ortcopy_dict['per_iteration_ns'] = per_iteration_ns\n": (_make_22, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, head, start, end, heads) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['head'] = head\n    __ortcopy_dict['start'] = start\n    __ortcopy_dict['end'] = end\n    __ortcopy_dict['heads'] = heads\n": (_make_23, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, ratio, low, high, method, n_base, n_other, level=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['ratio'] = ratio\n    __ortcopy_dict['low'] = low\n    __ortcopy_dict['high'] = high\n    __ortcopy_dict['method'] = method\n    __ortcopy_dict['n_base'] = n_base\n    __ortcopy_dict['n_other'] = n_other\n    __ortcopy_dict['level'] = level\n": (_make_24, ('__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, calls, timer, base=__ortcopy_default2, min_rounds=__ortcopy_default3, budget_s=__ortcopy_default4, target=__ortcopy_default5, max_rounds=__ortcopy_default6, clock=__ortcopy_default7, host=__ortcopy_has_factory, gpu=__ortcopy_has_factory, stop_reason=__ortcopy_default10) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['timer'] = timer\n    __ortcopy_dict['base'] = base\n    __ortcopy_dict['min_rounds'] = min_rounds\n    __ortcopy_dict['budget_s'] = budget_s\n    __ortcopy_dict['target'] = target\n    __ortcopy_dict['max_rounds'] = max_rounds\n    __ortcopy_dict['clock'] = clock\n    __ortcopy_dict['host'] = __ortcopy_factory8() if host is __ortcopy_has_factory else host\n    __ortcopy_dict['gpu'] = __ortcopy_factory9() if gpu is __ortcopy_has_factory else gpu\n    __ortcopy_dict['stop_reason'] = stop_reason\n": (_make_25, ('__ortcopy_default10', '__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_factory8', '__ortcopy_factory9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, gate, sarif=__ortcopy_default1, trace=__ortcopy_default2) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['gate'] = gate\n    __ortcopy_dict['sarif'] = sarif\n    __ortcopy_dict['trace'] = trace\n": (_make_26, ('__ortcopy_default1', '__ortcopy_default2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, bytes, source) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['source'] = source\n": (_make_27, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, runs, note=__ortcopy_default1) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['note'] = note\n": (_make_28, ('__ortcopy_default1', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, code, plan, flavor, namespace=__ortcopy_has_factory, first_inputs=__ortcopy_has_factory, setup_ms=__ortcopy_default6, first_ms=__ortcopy_default7) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['code'] = code\n    __ortcopy_dict['plan'] = plan\n    __ortcopy_dict['flavor'] = flavor\n    __ortcopy_dict['namespace'] = __ortcopy_factory4() if namespace is __ortcopy_has_factory else namespace\n    __ortcopy_dict['first_inputs'] = __ortcopy_factory5() if first_inputs is __ortcopy_has_factory else first_inputs\n    __ortcopy_dict['setup_ms'] = setup_ms\n    __ortcopy_dict['first_ms'] = first_ms\n": (_make_29, ('__ortcopy_default6', '__ortcopy_default7', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, session, output_names) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['output_names'] = output_names\n": (_make_30, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, environment, providers=__ortcopy_has_factory, libraries=__ortcopy_has_factory, warnings=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['environment'] = environment\n    __ortcopy_dict['providers'] = __ortcopy_factory1() if providers is __ortcopy_has_factory else providers\n    __ortcopy_dict['libraries'] = __ortcopy_factory2() if libraries is __ortcopy_has_factory else libraries\n    __ortcopy_dict['warnings'] = __ortcopy_factory3() if warnings is __ortcopy_has_factory else warnings\n": (_make_31, ('__ortcopy_factory1', '__ortcopy_factory2', '__ortcopy_factory3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, found, error=__ortcopy_default2) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['found'] = found\n    __ortcopy_dict['error'] = error\n": (_make_32, ('__ortcopy_default2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, loadable, reason=__ortcopy_default2) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['loadable'] = loadable\n    __ortcopy_dict['reason'] = reason\n": (_make_33, ('__ortcopy_default2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, value, reason, tried=__ortcopy_default2) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['value'] = value\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['tried'] = tried\n": (_make_34, ('__ortcopy_default2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, text, reason) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['text'] = text\n    __ortcopy_dict['reason'] = reason\n": (_make_35, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, ep_failures=__ortcopy_has_factory, kernel_not_found=__ortcopy_has_factory, cpu_preferred=__ortcopy_has_factory, memcpy=__ortcopy_has_factory, placement=__ortcopy_has_factory, placement_counts=__ortcopy_has_factory, relevant=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['ep_failures'] = __ortcopy_factory0() if ep_failures is __ortcopy_has_factory else ep_failures\n    __ortcopy_dict['kernel_not_found'] = __ortcopy_factory1() if kernel_not_found is __ortcopy_has_factory else kernel_not_found\n    __ortcopy_dict['cpu_preferred'] = __ortcopy_factory2() if cpu_preferred is __ortcopy_has_factory else cpu_preferred\n    __ortcopy_dict['memcpy'] = __ortcopy_factory3() if memcpy is __ortcopy_has_factory else memcpy\n    __ortcopy_dict['placement'] = __ortcopy_factory4() if placement is __ortcopy_has_factory else placement\n    __ortcopy_dict['placement_counts'] = __ortcopy_factory5() if placement_counts is __ortcopy_has_factory else placement_counts\n    __ortcopy_dict['relevant'] = __ortcopy_factory6() if relevant is __ortcopy_has_factory else relevant\n": (_make_36, ('__ortcopy_factory0', '__ortcopy_factory1', '__ortcopy_factory2', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_factory6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, providers=__ortcopy_has_factory, provider_options=__ortcopy_has_factory, device_id=__ortcopy_default2, dims=__ortcopy_has_factory, shapes=__ortcopy_has_factory, inputs_file=__ortcopy_default5, values=__ortcopy_has_factory, state=__ortcopy_has_factory, strict_shapes=__ortcopy_default8, static=__ortcopy_default9, warmup_runs=__ortcopy_default10, profiled_runs=__ortcopy_default11, timed_runs=__ortcopy_default12, seed=__ortcopy_default13, custom_op_libraries=__ortcopy_has_factory, measure_binding=__ortcopy_default15, measure_runs=__ortcopy_default16, measure_budget_s=__ortcopy_default17) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['providers'] = __ortcopy_factory0() if providers is __ortcopy_has_factory else providers\n    __ortcopy_dict['provider_options'] = __ortcopy_factory1() if provider_options is __ortcopy_has_factory else provider_options\n    __ortcopy_dict['device_id'] = device_id\n    __ortcopy_dict['dims'] = __ortcopy_factory3() if dims is __ortcopy_has_factory else dims\n    __ortcopy_dict['shapes'] = __ortcopy_factory4() if shapes is __ortcopy_has_factory else shapes\n    __ortcopy_dict['inputs_file'] = inputs_file\n    __ortcopy_dict['values'] = __ortcopy_factory6() if values is __ortcopy_has_factory else values\n    __ortcopy_dict['state'] = __ortcopy_factory7() if state is __ortcopy_has_factory else state\n    __ortcopy_dict['strict_shapes'] = strict_shapes\n    __ortcopy_dict['static'] = static\n    __ortcopy_dict['warmup_runs'] = warmup_runs\n    __ortcopy_dict['profiled_runs'] = profiled_runs\n    __ortcopy_dict['timed_runs'] = timed_runs\n    __ortcopy_dict['seed'] = seed\n    __ortcopy_dict['custom_op_libraries'] = __ortcopy_factory14() if custom_op_libraries is __ortcopy_has_factory else custom_op_libraries\n    __ortcopy_dict['measure_binding'] = measure_binding\n    __ortcopy_dict['measure_runs'] = measure_runs\n    __ortcopy_dict['measure_budget_s'] = measure_budget_s\n": (_make_37, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default15', '__ortcopy_default16', '__ortcopy_default17', '__ortcopy_default2', '__ortcopy_default5', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory0', '__ortcopy_factory1', '__ortcopy_factory14', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_factory6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, op_type, node, message) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['message'] = message\n": (_make_38, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, dims=__ortcopy_has_factory, values=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['dims'] = __ortcopy_factory0() if dims is __ortcopy_has_factory else dims\n    __ortcopy_dict['values'] = __ortcopy_factory1() if values is __ortcopy_has_factory else values\n": (_make_39, ('__ortcopy_factory0', '__ortcopy_factory1', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, direction, host, size, reason, bytes=__ortcopy_default4, when=__ortcopy_default5, source=__ortcopy_default6, tensor=__ortcopy_default7) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['host'] = host\n    __ortcopy_dict['size'] = size\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['when'] = when\n    __ortcopy_dict['source'] = source\n    __ortcopy_dict['tensor'] = tensor\n": (_make_40, ('__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, found, reason, provider, domain, op_type, opset, registration=__ortcopy_default6, nearest_opset=__ortcopy_default7, arg_kind=__ortcopy_default8, arg_index=__ortcopy_default9, arg_name=__ortcopy_default10, arg_type=__ortcopy_default11, supported_types=__ortcopy_has_factory, suggested_cast=__ortcopy_default13, note=__ortcopy_default14) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['found'] = found\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['domain'] = domain\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['opset'] = opset\n    __ortcopy_dict['registration'] = registration\n    __ortcopy_dict['nearest_opset'] = nearest_opset\n    __ortcopy_dict['arg_kind'] = arg_kind\n    __ortcopy_dict['arg_index'] = arg_index\n    __ortcopy_dict['arg_name'] = arg_name\n    __ortcopy_dict['arg_type'] = arg_type\n    __ortcopy_dict['supported_types'] = __ortcopy_factory12() if supported_types is __ortcopy_has_factory else supported_types\n    __ortcopy_dict['suggested_cast'] = suggested_cast\n    __ortcopy_dict['note'] = note\n": (_make_41, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory12', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, since, until, types, inputs, outputs) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['since'] = since\n    __ortcopy_dict['until'] = until\n    __ortcopy_dict['types'] = types\n    __ortcopy_dict['inputs'] = inputs\n    __ortcopy_dict['outputs'] = outputs\n": (_make_42, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, ort_version, provider, domain, op_type, since, until, has_kernel, evidence, when=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['ort_version'] = ort_version\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['domain'] = domain\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['since'] = since\n    __ortcopy_dict['until'] = until\n    __ortcopy_dict['has_kernel'] = has_kernel\n    __ortcopy_dict['evidence'] = evidence\n    __ortcopy_dict['when'] = when\n": (_make_43, ('__ortcopy_default8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, provider, nodes=__ortcopy_has_factory, memcpy_insertions=__ortcopy_has_factory, notes=__ortcopy_has_factory, removed=__ortcopy_has_factory, shaped_model=__ortcopy_default5) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['nodes'] = __ortcopy_factory1() if nodes is __ortcopy_has_factory else nodes\n    __ortcopy_dict['memcpy_insertions'] = __ortcopy_factory2() if memcpy_insertions is __ortcopy_has_factory else memcpy_insertions\n    __ortcopy_dict['notes'] = __ortcopy_factory3() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['removed'] = __ortcopy_factory4() if removed is __ortcopy_has_factory else removed\n    __ortcopy_dict['shaped_model'] = shaped_model\n": (_make_44, ('__ortcopy_default5', '__ortcopy_factory1', '__ortcopy_factory2', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, op_type, graph, why) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['graph'] = graph\n    __ortcopy_dict['why'] = why\n": (_make_45, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, node, domain, opset, input_types, output_types, match=__ortcopy_default5, provider=__ortcopy_default6, reason=__ortcopy_default7, detail=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['domain'] = domain\n    __ortcopy_dict['opset'] = opset\n    __ortcopy_dict['input_types'] = input_types\n    __ortcopy_dict['output_types'] = output_types\n    __ortcopy_dict['match'] = match\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['detail'] = detail\n": (_make_46, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, records=__ortcopy_has_factory, clock_pairs=__ortcopy_has_factory, backend=__ortcopy_default2, clock_error_ns=__ortcopy_default3, clock_verified=__ortcopy_default4, notes=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['records'] = __ortcopy_factory0() if records is __ortcopy_has_factory else records\n    __ortcopy_dict['clock_pairs'] = __ortcopy_factory1() if clock_pairs is __ortcopy_has_factory else clock_pairs\n    __ortcopy_dict['backend'] = backend\n    __ortcopy_dict['clock_error_ns'] = clock_error_ns\n    __ortcopy_dict['clock_verified'] = clock_verified\n    __ortcopy_dict['notes'] = __ortcopy_factory5() if notes is __ortcopy_has_factory else notes\n": (_make_47, ('__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_factory0', '__ortcopy_factory1', '__ortcopy_factory5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, direction, bytes, src_kind, dst_kind, start_ns, end_ns, correlation_id, api_start_ns=__ortcopy_default7, api_kind=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['src_kind'] = src_kind\n    __ortcopy_dict['dst_kind'] = dst_kind\n    __ortcopy_dict['start_ns'] = start_ns\n    __ortcopy_dict['end_ns'] = end_ns\n    __ortcopy_dict['correlation_id'] = correlation_id\n    __ortcopy_dict['api_start_ns'] = api_start_ns\n    __ortcopy_dict['api_kind'] = api_kind\n": (_make_48, ('__ortcopy_default7', '__ortcopy_default8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, direction, tensor, bytes_per_run, count_per_run=__ortcopy_default4, shape=__ortcopy_default5, dtype=__ortcopy_default6, node=__ortcopy_default7, producers=__ortcopy_has_factory, consumers=__ortcopy_has_factory, cause=__ortcopy_default10, removable_by_binding=__ortcopy_default11, source=__ortcopy_default12, confirmed=__ortcopy_default13, branch=__ortcopy_default14) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['bytes_per_run'] = bytes_per_run\n    __ortcopy_dict['count_per_run'] = count_per_run\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['dtype'] = dtype\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['producers'] = __ortcopy_factory8() if producers is __ortcopy_has_factory else producers\n    __ortcopy_dict['consumers'] = __ortcopy_factory9() if consumers is __ortcopy_has_factory else consumers\n    __ortcopy_dict['cause'] = cause\n    __ortcopy_dict['removable_by_binding'] = removable_by_binding\n    __ortcopy_dict['source'] = source\n    __ortcopy_dict['confirmed'] = confirmed\n    __ortcopy_dict['branch'] = branch\n": (_make_49, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_factory8', '__ortcopy_factory9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, status, key, before, after, what=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['status'] = status\n    __ortcopy_dict['key'] = key\n    __ortcopy_dict['before'] = before\n    __ortcopy_dict['after'] = after\n    __ortcopy_dict['what'] = __ortcopy_factory4() if what is __ortcopy_has_factory else what\n": (_make_50, ('__ortcopy_factory4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, label, before, after, unit=__ortcopy_default3, before_unknown=__ortcopy_default4, after_unknown=__ortcopy_default5) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['label'] = label\n    __ortcopy_dict['before'] = before\n    __ortcopy_dict['after'] = after\n    __ortcopy_dict['unit'] = unit\n    __ortcopy_dict['before_unknown'] = before_unknown\n    __ortcopy_dict['after_unknown'] = after_unknown\n": (_make_51, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, provider, copies, findings, deltas) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['copies'] = copies\n    __ortcopy_dict['findings'] = findings\n    __ortcopy_dict['deltas'] = deltas\n": (_make_52, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, a_name, b_name, a, b, copies, findings, deltas, environment, inputs=__ortcopy_has_factory, predicted=__ortcopy_default9, predicted_note=__ortcopy_default10) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['a_name'] = a_name\n    __ortcopy_dict['b_name'] = b_name\n    __ortcopy_dict['a'] = a\n    __ortcopy_dict['b'] = b\n    __ortcopy_dict['copies'] = copies\n    __ortcopy_dict['findings'] = findings\n    __ortcopy_dict['deltas'] = deltas\n    __ortcopy_dict['environment'] = environment\n    __ortcopy_dict['inputs'] = __ortcopy_factory8() if inputs is __ortcopy_has_factory else inputs\n    __ortcopy_dict['predicted'] = predicted\n    __ortcopy_dict['predicted_note'] = predicted_note\n": (_make_53, ('__ortcopy_default10', '__ortcopy_default9', '__ortcopy_factory8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, input, axis, declared, value, flag, near=__ortcopy_default5, reason=__ortcopy_default6, tried=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['input'] = input\n    __ortcopy_dict['axis'] = axis\n    __ortcopy_dict['declared'] = declared\n    __ortcopy_dict['value'] = value\n    __ortcopy_dict['flag'] = flag\n    __ortcopy_dict['near'] = near\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['tried'] = __ortcopy_factory7() if tried is __ortcopy_has_factory else tried\n": (_make_54, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, status, reason=__ortcopy_default1, runs=__ortcopy_default2, warmup_runs=__ortcopy_default3, transfer_source=__ortcopy_default4, variants=__ortcopy_has_factory, phases=__ortcopy_has_factory, phase_binding=__ortcopy_default7, pinned=__ortcopy_default8, cuda_graph_blockers=__ortcopy_has_factory, notes=__ortcopy_has_factory, min_runs=__ortcopy_default11, budget_s=__ortcopy_default12, stop_reason=__ortcopy_default13, gpu_timer=__ortcopy_default14) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['status'] = status\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['warmup_runs'] = warmup_runs\n    __ortcopy_dict['transfer_source'] = transfer_source\n    __ortcopy_dict['variants'] = __ortcopy_factory5() if variants is __ortcopy_has_factory else variants\n    __ortcopy_dict['phases'] = __ortcopy_factory6() if phases is __ortcopy_has_factory else phases\n    __ortcopy_dict['phase_binding'] = phase_binding\n    __ortcopy_dict['pinned'] = pinned\n    __ortcopy_dict['cuda_graph_blockers'] = __ortcopy_factory9() if cuda_graph_blockers is __ortcopy_has_factory else cuda_graph_blockers\n    __ortcopy_dict['notes'] = __ortcopy_factory10() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['min_runs'] = min_runs\n    __ortcopy_dict['budget_s'] = budget_s\n    __ortcopy_dict['stop_reason'] = stop_reason\n    __ortcopy_dict['gpu_timer'] = gpu_timer\n": (_make_55, ('__ortcopy_default1', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_factory10', '__ortcopy_factory5', '__ortcopy_factory6', '__ortcopy_factory9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, backend, backend_version, records=__ortcopy_has_factory, clock_pairs=__ortcopy_has_factory, traced_runs=__ortcopy_has_factory, clock_verified=__ortcopy_default5, traced_run_ms=__ortcopy_has_factory, notes=__ortcopy_has_factory, clock_error_ns=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['backend'] = backend\n    __ortcopy_dict['backend_version'] = backend_version\n    __ortcopy_dict['records'] = __ortcopy_factory2() if records is __ortcopy_has_factory else records\n    __ortcopy_dict['clock_pairs'] = __ortcopy_factory3() if clock_pairs is __ortcopy_has_factory else clock_pairs\n    __ortcopy_dict['traced_runs'] = __ortcopy_factory4() if traced_runs is __ortcopy_has_factory else traced_runs\n    __ortcopy_dict['clock_verified'] = clock_verified\n    __ortcopy_dict['traced_run_ms'] = __ortcopy_factory6() if traced_run_ms is __ortcopy_has_factory else traced_run_ms\n    __ortcopy_dict['notes'] = __ortcopy_factory7() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['clock_error_ns'] = clock_error_ns\n": (_make_56, ('__ortcopy_default5', '__ortcopy_default8', '__ortcopy_factory2', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_factory6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, block, status, device=__ortcopy_default2, calls=__ortcopy_default3, detail=__ortcopy_default4, tolerance=__ortcopy_default5, code_sha256=__ortcopy_default6, nondeterministic=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['block'] = block\n    __ortcopy_dict['status'] = status\n    __ortcopy_dict['device'] = device\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['detail'] = detail\n    __ortcopy_dict['tolerance'] = tolerance\n    __ortcopy_dict['code_sha256'] = code_sha256\n    __ortcopy_dict['nondeterministic'] = __ortcopy_factory7() if nondeterministic is __ortcopy_has_factory else nondeterministic\n": (_make_57, ('__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, ort_version, ort_build, ort_package, onnx_version, numpy_version, python, platform, available_providers, gpus=__ortcopy_has_factory, ort_has_from_dlpack=__ortcopy_default9) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['ort_version'] = ort_version\n    __ortcopy_dict['ort_build'] = ort_build\n    __ortcopy_dict['ort_package'] = ort_package\n    __ortcopy_dict['onnx_version'] = onnx_version\n    __ortcopy_dict['numpy_version'] = numpy_version\n    __ortcopy_dict['python'] = python\n    __ortcopy_dict['platform'] = platform\n    __ortcopy_dict['available_providers'] = available_providers\n    __ortcopy_dict['gpus'] = __ortcopy_factory8() if gpus is __ortcopy_has_factory else gpus\n    __ortcopy_dict['ort_has_from_dlpack'] = ort_has_from_dlpack\n": (_make_58, ('__ortcopy_default9', '__ortcopy_factory8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, model, session, environment, feeds=__ortcopy_has_factory, nodes=__ortcopy_has_factory, memcpy_insertions=__ortcopy_has_factory, node_events=__ortcopy_has_factory, run_events=__ortcopy_has_factory, timings=__ortcopy_default8, mode=__ortcopy_default9, notes=__ortcopy_has_factory, value_infos=__ortcopy_has_factory, predicted=__ortcopy_default12, failure=__ortcopy_default13, census=__ortcopy_default14, census_status=__ortcopy_default15, binding_measurement=__ortcopy_default16, assumed_dims=__ortcopy_has_factory, inputs_file=__ortcopy_default18, given_state=__ortcopy_has_factory, code_checks=__ortcopy_has_factory, tool_version=__ortcopy_default21, created_utc=__ortcopy_default22, format_version=__ortcopy_default23) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['model'] = model\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['environment'] = environment\n    __ortcopy_dict['feeds'] = __ortcopy_factory3() if feeds is __ortcopy_has_factory else feeds\n    __ortcopy_dict['nodes'] = __ortcopy_factory4() if nodes is __ortcopy_has_factory else nodes\n    __ortcopy_dict['memcpy_insertions'] = __ortcopy_factory5() if memcpy_insertions is __ortcopy_has_factory else memcpy_insertions\n    __ortcopy_dict['node_events'] = __ortcopy_factory6() if node_events is __ortcopy_has_factory else node_events\n    __ortcopy_dict['run_events'] = __ortcopy_factory7() if run_events is __ortcopy_has_factory else run_events\n    __ortcopy_dict['timings'] = timings\n    __ortcopy_dict['mode'] = mode\n    __ortcopy_dict['notes'] = __ortcopy_factory10() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['value_infos'] = __ortcopy_factory11() if value_infos is __ortcopy_has_factory else value_infos\n    __ortcopy_dict['predicted'] = predicted\n    __ortcopy_dict['failure'] = failure\n    __ortcopy_dict['census'] = census\n    __ortcopy_dict['census_status'] = census_status\n    __ortcopy_dict['binding_measurement'] = binding_measurement\n    __ortcopy_dict['assumed_dims'] = __ortcopy_factory17() if assumed_dims is __ortcopy_has_factory else assumed_dims\n    __ortcopy_dict['inputs_file'] = inputs_file\n    __ortcopy_dict['given_state'] = __ortcopy_factory19() if given_state is __ortcopy_has_factory else given_state\n    __ortcopy_dict['code_checks'] = __ortcopy_factory20() if code_checks is __ortcopy_has_factory else code_checks\n    __ortcopy_dict['tool_version'] = tool_version\n    __ortcopy_dict['created_utc'] = created_utc\n    __ortcopy_dict['format_version'] = format_version\n": (_make_59, ('__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_default16', '__ortcopy_default18', '__ortcopy_default21', '__ortcopy_default22', '__ortcopy_default23', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory10', '__ortcopy_factory11', '__ortcopy_factory17', '__ortcopy_factory19', '__ortcopy_factory20', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_factory6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, dtype, shape, bytes, source, high=__ortcopy_default5, value=__ortcopy_default6, chosen=__ortcopy_default7) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['dtype'] = dtype\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['source'] = source\n    __ortcopy_dict['high'] = high\n    __ortcopy_dict['value'] = value\n    __ortcopy_dict['chosen'] = chosen\n": (_make_60, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, severity, source, message) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['severity'] = severity\n    __ortcopy_dict['source'] = source\n    __ortcopy_dict['message'] = message\n": (_make_61, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, op_type, tensor, provider, graph=__ortcopy_default3) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['graph'] = graph\n": (_make_62, ('__ortcopy_default3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, path, file_bytes, sha256, ir_version, producer, opsets, inputs, outputs, nodes, subgraphs, initializer_count, initializer_bytes, external_data_files=__ortcopy_has_factory, external_data_bytes=__ortcopy_default13) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['path'] = path\n    __ortcopy_dict['file_bytes'] = file_bytes\n    __ortcopy_dict['sha256'] = sha256\n    __ortcopy_dict['ir_version'] = ir_version\n    __ortcopy_dict['producer'] = producer\n    __ortcopy_dict['opsets'] = opsets\n    __ortcopy_dict['inputs'] = inputs\n    __ortcopy_dict['outputs'] = outputs\n    __ortcopy_dict['nodes'] = nodes\n    __ortcopy_dict['subgraphs'] = subgraphs\n    __ortcopy_dict['initializer_count'] = initializer_count\n    __ortcopy_dict['initializer_bytes'] = initializer_bytes\n    __ortcopy_dict['external_data_files'] = __ortcopy_factory12() if external_data_files is __ortcopy_has_factory else external_data_files\n    __ortcopy_dict['external_data_bytes'] = external_data_bytes\n": (_make_63, ('__ortcopy_default13', '__ortcopy_factory12', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, run, name, op_type, provider, ts_us, dur_us, input_shapes, output_shapes, output_bytes) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['run'] = run\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['ts_us'] = ts_us\n    __ortcopy_dict['dur_us'] = dur_us\n    __ortcopy_dict['input_shapes'] = input_shapes\n    __ortcopy_dict['output_shapes'] = output_shapes\n    __ortcopy_dict['output_bytes'] = output_bytes\n": (_make_64, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, name, op_type, domain, inputs, outputs, graph=__ortcopy_default5) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['domain'] = domain\n    __ortcopy_dict['inputs'] = inputs\n    __ortcopy_dict['outputs'] = outputs\n    __ortcopy_dict['graph'] = graph\n": (_make_65, ('__ortcopy_default5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, phase, what, runs, median_ms=__ortcopy_default3, p10_ms=__ortcopy_default4, p90_ms=__ortcopy_default5, bytes=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['phase'] = phase\n    __ortcopy_dict['what'] = what\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['median_ms'] = median_ms\n    __ortcopy_dict['p10_ms'] = p10_ms\n    __ortcopy_dict['p90_ms'] = p90_ms\n    __ortcopy_dict['bytes'] = bytes\n": (_make_66, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, method, bytes, runs=__ortcopy_default2, pageable_ms=__ortcopy_default3, pinned_ms=__ortcopy_default4, staging_ms=__ortcopy_default5, skipped_reason=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['method'] = method\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['pageable_ms'] = pageable_ms\n    __ortcopy_dict['pinned_ms'] = pinned_ms\n    __ortcopy_dict['staging_ms'] = staging_ms\n    __ortcopy_dict['skipped_reason'] = skipped_reason\n": (_make_67, ('__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, run, ts_us, dur_us, warmup) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['run'] = run\n    __ortcopy_dict['ts_us'] = ts_us\n    __ortcopy_dict['dur_us'] = dur_us\n    __ortcopy_dict['warmup'] = warmup\n": (_make_68, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, name, op_type, domain, provider, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, graph=__ortcopy_default6, fallback_reason=__ortcopy_default7, fallback_detail=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['domain'] = domain\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['inputs'] = __ortcopy_factory4() if inputs is __ortcopy_has_factory else inputs\n    __ortcopy_dict['outputs'] = __ortcopy_factory5() if outputs is __ortcopy_has_factory else outputs\n    __ortcopy_dict['graph'] = graph\n    __ortcopy_dict['fallback_reason'] = fallback_reason\n    __ortcopy_dict['fallback_detail'] = fallback_detail\n": (_make_69, ('__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, requested_providers, active_providers, provider_options, device_id, ep_failure, placement_source, graph_source, log=__ortcopy_has_factory, profiling_start_ns=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['requested_providers'] = requested_providers\n    __ortcopy_dict['active_providers'] = active_providers\n    __ortcopy_dict['provider_options'] = provider_options\n    __ortcopy_dict['device_id'] = device_id\n    __ortcopy_dict['ep_failure'] = ep_failure\n    __ortcopy_dict['placement_source'] = placement_source\n    __ortcopy_dict['graph_source'] = graph_source\n    __ortcopy_dict['log'] = __ortcopy_factory7() if log is __ortcopy_has_factory else log\n    __ortcopy_dict['profiling_start_ns'] = profiling_start_ns\n": (_make_70, ('__ortcopy_default8', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, node, op_type, attribute, node_count) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['attribute'] = attribute\n    __ortcopy_dict['node_count'] = node_count\n": (_make_71, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, warmup_runs, profiled_runs, run_ms, session_create_ms=__ortcopy_default3, first_run_ms=__ortcopy_default4) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['warmup_runs'] = warmup_runs\n    __ortcopy_dict['profiled_runs'] = profiled_runs\n    __ortcopy_dict['run_ms'] = run_ms\n    __ortcopy_dict['session_create_ms'] = session_create_ms\n    __ortcopy_dict['first_run_ms'] = first_run_ms\n": (_make_72, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, kind, elem_type, shape, type_string=__ortcopy_default4) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['elem_type'] = elem_type\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['type_string'] = type_string\n": (_make_73, ('__ortcopy_default4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, variant, label, ran, skipped_reason=__ortcopy_default3, runs=__ortcopy_default4, median_ms=__ortcopy_default5, p10_ms=__ortcopy_default6, p25_ms=__ortcopy_default7, p75_ms=__ortcopy_default8, p90_ms=__ortcopy_default9, h2d_count=__ortcopy_default10, h2d_bytes=__ortcopy_default11, d2h_count=__ortcopy_default12, d2h_bytes=__ortcopy_default13, transfer_source=__ortcopy_default14, first_run_ms=__ortcopy_default15, session_create_ms=__ortcopy_default16, samples_ms=__ortcopy_default17, gpu_samples_ms=__ortcopy_default18, gpu_median_ms=__ortcopy_default19, failed=__ortcopy_default20) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['variant'] = variant\n    __ortcopy_dict['label'] = label\n    __ortcopy_dict['ran'] = ran\n    __ortcopy_dict['skipped_reason'] = skipped_reason\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['median_ms'] = median_ms\n    __ortcopy_dict['p10_ms'] = p10_ms\n    __ortcopy_dict['p25_ms'] = p25_ms\n    __ortcopy_dict['p75_ms'] = p75_ms\n    __ortcopy_dict['p90_ms'] = p90_ms\n    __ortcopy_dict['h2d_count'] = h2d_count\n    __ortcopy_dict['h2d_bytes'] = h2d_bytes\n    __ortcopy_dict['d2h_count'] = d2h_count\n    __ortcopy_dict['d2h_bytes'] = d2h_bytes\n    __ortcopy_dict['transfer_source'] = transfer_source\n    __ortcopy_dict['first_run_ms'] = first_run_ms\n    __ortcopy_dict['session_create_ms'] = session_create_ms\n    __ortcopy_dict['samples_ms'] = samples_ms\n    __ortcopy_dict['gpu_samples_ms'] = gpu_samples_ms\n    __ortcopy_dict['gpu_median_ms'] = gpu_median_ms\n    __ortcopy_dict['failed'] = failed\n": (_make_74, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_default16', '__ortcopy_default17', '__ortcopy_default18', '__ortcopy_default19', '__ortcopy_default20', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, rule, slug, severity, title, message, fix, location, bytes_per_run=__ortcopy_default7, predicted=__ortcopy_default8, details=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['rule'] = rule\n    __ortcopy_dict['slug'] = slug\n    __ortcopy_dict['severity'] = severity\n    __ortcopy_dict['title'] = title\n    __ortcopy_dict['message'] = message\n    __ortcopy_dict['fix'] = fix\n    __ortcopy_dict['location'] = location\n    __ortcopy_dict['bytes_per_run'] = bytes_per_run\n    __ortcopy_dict['predicted'] = predicted\n    __ortcopy_dict['details'] = __ortcopy_factory9() if details is __ortcopy_has_factory else details\n": (_make_75, ('__ortcopy_default7', '__ortcopy_default8', '__ortcopy_factory9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['inputs'] = __ortcopy_factory0() if inputs is __ortcopy_has_factory else inputs\n    __ortcopy_dict['outputs'] = __ortcopy_factory1() if outputs is __ortcopy_has_factory else outputs\n": (_make_76, ('__ortcopy_factory0', '__ortcopy_factory1', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, flag, shown, target, kind, identity, text=__ortcopy_default5, tmp=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['flag'] = flag\n    __ortcopy_dict['shown'] = shown\n    __ortcopy_dict['target'] = target\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['identity'] = identity\n    __ortcopy_dict['text'] = text\n    __ortcopy_dict['tmp'] = tmp\n": (_make_77, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, svg, note, wide=__ortcopy_default2, stats=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['svg'] = svg\n    __ortcopy_dict['note'] = note\n    __ortcopy_dict['wide'] = wide\n    __ortcopy_dict['stats'] = __ortcopy_factory3() if stats is __ortcopy_has_factory else stats\n": (_make_78, ('__ortcopy_default2', '__ortcopy_factory3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, nodes, names, neighbours, cpu_preferred) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['nodes'] = nodes\n    __ortcopy_dict['names'] = names\n    __ortcopy_dict['neighbours'] = neighbours\n    __ortcopy_dict['cpu_preferred'] = cpu_preferred\n": (_make_79, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, boxes, box_of, edges, islands, collapsed, truncated, layers) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['boxes'] = boxes\n    __ortcopy_dict['box_of'] = box_of\n    __ortcopy_dict['edges'] = edges\n    __ortcopy_dict['islands'] = islands\n    __ortcopy_dict['collapsed'] = collapsed\n    __ortcopy_dict['truncated'] = truncated\n    __ortcopy_dict['layers'] = layers\n": (_make_80, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, at_us, bytes, direction, kind, tensor=__ortcopy_default4, node=__ortcopy_default5, source=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['at_us'] = at_us\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['source'] = source\n": (_make_81, ('__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, members, collapsed, depth=__ortcopy_default2, row=__ortcopy_default3, x=__ortcopy_default4, y=__ortcopy_default5) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['members'] = members\n    __ortcopy_dict['collapsed'] = collapsed\n    __ortcopy_dict['depth'] = depth\n    __ortcopy_dict['row'] = row\n    __ortcopy_dict['x'] = x\n    __ortcopy_dict['y'] = y\n": (_make_82, ('__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, nodes, succ, pred, edge_tensors) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['nodes'] = nodes\n    __ortcopy_dict['succ'] = succ\n    __ortcopy_dict['pred'] = pred\n    __ortcopy_dict['edge_tensors'] = edge_tensors\n": (_make_83, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, status, one_line, reason=__ortcopy_default2, conclusions=__ortcopy_has_factory, warnings=__ortcopy_has_factory, ab_rows=__ortcopy_has_factory, transfer_source=__ortcopy_default6, phase_rows=__ortcopy_has_factory, phase_note=__ortcopy_default8, apart_rows=__ortcopy_has_factory, copy_guidance=__ortcopy_has_factory, graph_ready=__ortcopy_default11, graph_blockers=__ortcopy_has_factory, graph_text=__ortcopy_default13, graph_code=__ortcopy_default14, graph_code_check=__ortcopy_default15, pinned=__ortcopy_default16, all_cpu=__ortcopy_default17, all_cpu_advice=__ortcopy_default18, code_variants=__ortcopy_has_factory, notes=__ortcopy_has_factory, recommended=__ortcopy_default21, recommendation=__ortcopy_default22, needs=__ortcopy_has_factory, host_jitter=__ortcopy_default24, recommended_code=__ortcopy_default25) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['status'] = status\n    __ortcopy_dict['one_line'] = one_line\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['conclusions'] = __ortcopy_factory3() if conclusions is __ortcopy_has_factory else conclusions\n    __ortcopy_dict['warnings'] = __ortcopy_factory4() if warnings is __ortcopy_has_factory else warnings\n    __ortcopy_dict['ab_rows'] = __ortcopy_factory5() if ab_rows is __ortcopy_has_factory else ab_rows\n    __ortcopy_dict['transfer_source'] = transfer_source\n    __ortcopy_dict['phase_rows'] = __ortcopy_factory7() if phase_rows is __ortcopy_has_factory else phase_rows\n    __ortcopy_dict['phase_note'] = phase_note\n    __ortcopy_dict['apart_rows'] = __ortcopy_factory9() if apart_rows is __ortcopy_has_factory else apart_rows\n    __ortcopy_dict['copy_guidance'] = __ortcopy_factory10() if copy_guidance is __ortcopy_has_factory else copy_guidance\n    __ortcopy_dict['graph_ready'] = graph_ready\n    __ortcopy_dict['graph_blockers'] = __ortcopy_factory12() if graph_blockers is __ortcopy_has_factory else graph_blockers\n    __ortcopy_dict['graph_text'] = graph_text\n    __ortcopy_dict['graph_code'] = graph_code\n    __ortcopy_dict['graph_code_check'] = graph_code_check\n    __ortcopy_dict['pinned'] = pinned\n    __ortcopy_dict['all_cpu'] = all_cpu\n    __ortcopy_dict['all_cpu_advice'] = all_cpu_advice\n    __ortcopy_dict['code_variants'] = __ortcopy_factory19() if code_variants is __ortcopy_has_factory else code_variants\n    __ortcopy_dict['notes'] = __ortcopy_factory20() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['recommended'] = recommended\n    __ortcopy_dict['recommendation'] = recommendation\n    __ortcopy_dict['needs'] = __ortcopy_factory23() if needs is __ortcopy_has_factory else needs\n    __ortcopy_dict['host_jitter'] = host_jitter\n    __ortcopy_dict['recommended_code'] = recommended_code\n": (_make_84, ('__ortcopy_default11', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_default16', '__ortcopy_default17', '__ortcopy_default18', '__ortcopy_default2', '__ortcopy_default21', '__ortcopy_default22', '__ortcopy_default24', '__ortcopy_default25', '__ortcopy_default6', '__ortcopy_default8', '__ortcopy_factory10', '__ortcopy_factory12', '__ortcopy_factory19', '__ortcopy_factory20', '__ortcopy_factory23', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_factory7', '__ortcopy_factory9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, evidence, copies, findings, binding, summary, verdict, prediction=__ortcopy_default6, census=__ortcopy_default7, advice=__ortcopy_default8, measured=__ortcopy_default9, conditional_copies=__ortcopy_has_factory, from_cache=__ortcopy_default11) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['evidence'] = evidence\n    __ortcopy_dict['copies'] = copies\n    __ortcopy_dict['findings'] = findings\n    __ortcopy_dict['binding'] = binding\n    __ortcopy_dict['summary'] = summary\n    __ortcopy_dict['verdict'] = verdict\n    __ortcopy_dict['prediction'] = prediction\n    __ortcopy_dict['census'] = census\n    __ortcopy_dict['advice'] = advice\n    __ortcopy_dict['measured'] = measured\n    __ortcopy_dict['conditional_copies'] = __ortcopy_factory10() if conditional_copies is __ortcopy_has_factory else conditional_copies\n    __ortcopy_dict['from_cache'] = from_cache\n": (_make_85, ('__ortcopy_default11', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory10', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, copies_per_run, bytes_per_run, feed_copies, fetch_copies, memcpy_nodes, in_kernel_transfers, removable_by_binding, nodes_by_provider, fallback_nodes, median_run_ms, p10_run_ms, p90_run_ms, memcpy_node_time_us_per_run, findings_by_severity=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['copies_per_run'] = copies_per_run\n    __ortcopy_dict['bytes_per_run'] = bytes_per_run\n    __ortcopy_dict['feed_copies'] = feed_copies\n    __ortcopy_dict['fetch_copies'] = fetch_copies\n    __ortcopy_dict['memcpy_nodes'] = memcpy_nodes\n    __ortcopy_dict['in_kernel_transfers'] = in_kernel_transfers\n    __ortcopy_dict['removable_by_binding'] = removable_by_binding\n    __ortcopy_dict['nodes_by_provider'] = nodes_by_provider\n    __ortcopy_dict['fallback_nodes'] = fallback_nodes\n    __ortcopy_dict['median_run_ms'] = median_run_ms\n    __ortcopy_dict['p10_run_ms'] = p10_run_ms\n    __ortcopy_dict['p90_run_ms'] = p90_run_ms\n    __ortcopy_dict['memcpy_node_time_us_per_run'] = memcpy_node_time_us_per_run\n    __ortcopy_dict['findings_by_severity'] = __ortcopy_factory13() if findings_by_severity is __ortcopy_has_factory else findings_by_severity\n": (_make_86, ('__ortcopy_factory13', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, fail_on=__ortcopy_default0, max_transfer_bytes=__ortcopy_default1, allow=__ortcopy_has_factory, fail_on_gain=__ortcopy_default3) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['fail_on'] = fail_on\n    __ortcopy_dict['max_transfer_bytes'] = max_transfer_bytes\n    __ortcopy_dict['allow'] = __ortcopy_factory2() if allow is __ortcopy_has_factory else allow\n    __ortcopy_dict['fail_on_gain'] = fail_on_gain\n": (_make_87, ('__ortcopy_default0', '__ortcopy_default1', '__ortcopy_default3', '__ortcopy_factory2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, failed, reasons, allowed, notes=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['failed'] = failed\n    __ortcopy_dict['reasons'] = reasons\n    __ortcopy_dict['allowed'] = allowed\n    __ortcopy_dict['notes'] = __ortcopy_factory3() if notes is __ortcopy_has_factory else notes\n": (_make_88, ('__ortcopy_factory3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, status, recommended=__ortcopy_default1, recommended_label=__ortcopy_default2, reason=__ortcopy_default3, headline=__ortcopy_default4, current_ms=__ortcopy_default5, best_ms=__ortcopy_default6, speedup=__ortcopy_default7, speedup_ci_low=__ortcopy_default8, speedup_ci_high=__ortcopy_default9, ci_level=__ortcopy_default10, ci_method=__ortcopy_default11, copies_removed=__ortcopy_default12, bytes_removed=__ortcopy_default13, needs=__ortcopy_has_factory, cuda_graph_ready=__ortcopy_default15, cuda_graph_blockers=__ortcopy_has_factory, cuda_graph_vs_plan=__ortcopy_default17, host_jitter=__ortcopy_default18, code=__ortcopy_default19, code_check=__ortcopy_default20, notes=__ortcopy_has_factory, runs=__ortcopy_default22, stop_reason=__ortcopy_default23, variants=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['status'] = status\n    __ortcopy_dict['recommended'] = recommended\n    __ortcopy_dict['recommended_label'] = recommended_label\n    __ortcopy_dict['reason'] = reason\n    __ortcopy_dict['headline'] = headline\n    __ortcopy_dict['current_ms'] = current_ms\n    __ortcopy_dict['best_ms'] = best_ms\n    __ortcopy_dict['speedup'] = speedup\n    __ortcopy_dict['speedup_ci_low'] = speedup_ci_low\n    __ortcopy_dict['speedup_ci_high'] = speedup_ci_high\n    __ortcopy_dict['ci_level'] = ci_level\n    __ortcopy_dict['ci_method'] = ci_method\n    __ortcopy_dict['copies_removed'] = copies_removed\n    __ortcopy_dict['bytes_removed'] = bytes_removed\n    __ortcopy_dict['needs'] = __ortcopy_factory14() if needs is __ortcopy_has_factory else needs\n    __ortcopy_dict['cuda_graph_ready'] = cuda_graph_ready\n    __ortcopy_dict['cuda_graph_blockers'] = __ortcopy_factory16() if cuda_graph_blockers is __ortcopy_has_factory else cuda_graph_blockers\n    __ortcopy_dict['cuda_graph_vs_plan'] = cuda_graph_vs_plan\n    __ortcopy_dict['host_jitter'] = host_jitter\n    __ortcopy_dict['code'] = code\n    __ortcopy_dict['code_check'] = code_check\n    __ortcopy_dict['notes'] = __ortcopy_factory21() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['stop_reason'] = stop_reason\n    __ortcopy_dict['variants'] = __ortcopy_factory24() if variants is __ortcopy_has_factory else variants\n": (_make_89, ('__ortcopy_default1', '__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default15', '__ortcopy_default17', '__ortcopy_default18', '__ortcopy_default19', '__ortcopy_default2', '__ortcopy_default20', '__ortcopy_default22', '__ortcopy_default23', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory14', '__ortcopy_factory16', '__ortcopy_factory21', '__ortcopy_factory24', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, variant, label, ran, runs=__ortcopy_default3, skipped_reason=__ortcopy_default4, median_ms=__ortcopy_default5, median_ci_low_ms=__ortcopy_default6, median_ci_high_ms=__ortcopy_default7, speedup=__ortcopy_default8, speedup_ci_low=__ortcopy_default9, speedup_ci_high=__ortcopy_default10, verdict=__ortcopy_default11, gpu_median_ms=__ortcopy_default12, gpu_speedup=__ortcopy_default13, gpu_speedup_ci_low=__ortcopy_default14, gpu_speedup_ci_high=__ortcopy_default15, copies_per_run=__ortcopy_default16, bytes_per_run=__ortcopy_default17, needs=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['variant'] = variant\n    __ortcopy_dict['label'] = label\n    __ortcopy_dict['ran'] = ran\n    __ortcopy_dict['runs'] = runs\n    __ortcopy_dict['skipped_reason'] = skipped_reason\n    __ortcopy_dict['median_ms'] = median_ms\n    __ortcopy_dict['median_ci_low_ms'] = median_ci_low_ms\n    __ortcopy_dict['median_ci_high_ms'] = median_ci_high_ms\n    __ortcopy_dict['speedup'] = speedup\n    __ortcopy_dict['speedup_ci_low'] = speedup_ci_low\n    __ortcopy_dict['speedup_ci_high'] = speedup_ci_high\n    __ortcopy_dict['verdict'] = verdict\n    __ortcopy_dict['gpu_median_ms'] = gpu_median_ms\n    __ortcopy_dict['gpu_speedup'] = gpu_speedup\n    __ortcopy_dict['gpu_speedup_ci_low'] = gpu_speedup_ci_low\n    __ortcopy_dict['gpu_speedup_ci_high'] = gpu_speedup_ci_high\n    __ortcopy_dict['copies_per_run'] = copies_per_run\n    __ortcopy_dict['bytes_per_run'] = bytes_per_run\n    __ortcopy_dict['needs'] = __ortcopy_factory18() if needs is __ortcopy_has_factory else needs\n": (_make_90, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_default16', '__ortcopy_default17', '__ortcopy_default3', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory18', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, subject, detail) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['subject'] = subject\n    __ortcopy_dict['detail'] = detail\n": (_make_91, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, verdict, delta_ms=__ortcopy_default1, text=__ortcopy_default2, ci=__ortcopy_default3) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['verdict'] = verdict\n    __ortcopy_dict['delta_ms'] = delta_ms\n    __ortcopy_dict['text'] = text\n    __ortcopy_dict['ci'] = ci\n": (_make_92, ('__ortcopy_default1', '__ortcopy_default2', '__ortcopy_default3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, id, slug, severity, title, location=__ortcopy_default4, help=__ortcopy_default5) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['id'] = id\n    __ortcopy_dict['slug'] = slug\n    __ortcopy_dict['severity'] = severity\n    __ortcopy_dict['title'] = title\n    __ortcopy_dict['location'] = location\n    __ortcopy_dict['help'] = help\n": (_make_93, ('__ortcopy_default4', '__ortcopy_default5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, evidence, copies, graph, census=__ortcopy_default3, binding=__ortcopy_default4) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['evidence'] = evidence\n    __ortcopy_dict['copies'] = copies\n    __ortcopy_dict['graph'] = graph\n    __ortcopy_dict['census'] = census\n    __ortcopy_dict['binding'] = binding\n": (_make_94, ('__ortcopy_default3', '__ortcopy_default4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, rule, check) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['rule'] = rule\n    __ortcopy_dict['check'] = check\n": (_make_95, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, method, name, records=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['method'] = method\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['records'] = __ortcopy_factory2() if records is __ortcopy_has_factory else records\n": (_make_96, ('__ortcopy_factory2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, index, method, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, traced=__ortcopy_default4, records=__ortcopy_has_factory, bind_records=__ortcopy_has_factory, start_ns=__ortcopy_default7, end_ns=__ortcopy_default8, error=__ortcopy_default9, profile=__ortcopy_default10) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['index'] = index\n    __ortcopy_dict['method'] = method\n    __ortcopy_dict['inputs'] = __ortcopy_factory2() if inputs is __ortcopy_has_factory else inputs\n    __ortcopy_dict['outputs'] = __ortcopy_factory3() if outputs is __ortcopy_has_factory else outputs\n    __ortcopy_dict['traced'] = traced\n    __ortcopy_dict['records'] = __ortcopy_factory5() if records is __ortcopy_has_factory else records\n    __ortcopy_dict['bind_records'] = __ortcopy_factory6() if bind_records is __ortcopy_has_factory else bind_records\n    __ortcopy_dict['start_ns'] = start_ns\n    __ortcopy_dict['end_ns'] = end_ns\n    __ortcopy_dict['error'] = error\n    __ortcopy_dict['profile'] = profile\n": (_make_97, ('__ortcopy_default10', '__ortcopy_default4', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory2', '__ortcopy_factory3', '__ortcopy_factory5', '__ortcopy_factory6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, run_dur_us, memcpy_nodes=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['run_dur_us'] = run_dur_us\n    __ortcopy_dict['memcpy_nodes'] = __ortcopy_factory1() if memcpy_nodes is __ortcopy_has_factory else memcpy_nodes\n": (_make_98, ('__ortcopy_factory1', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, direction, node, op_type, tensor, cause) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['cause'] = cause\n": (_make_99, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, source, provider, detail=__ortcopy_default2, inputs_on_device=__ortcopy_has_factory, inputs_on_host=__ortcopy_has_factory, outputs_on_device=__ortcopy_has_factory, outputs_on_host=__ortcopy_has_factory, model_sites=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['source'] = source\n    __ortcopy_dict['provider'] = provider\n    __ortcopy_dict['detail'] = detail\n    __ortcopy_dict['inputs_on_device'] = __ortcopy_factory3() if inputs_on_device is __ortcopy_has_factory else inputs_on_device\n    __ortcopy_dict['inputs_on_host'] = __ortcopy_factory4() if inputs_on_host is __ortcopy_has_factory else inputs_on_host\n    __ortcopy_dict['outputs_on_device'] = __ortcopy_factory5() if outputs_on_device is __ortcopy_has_factory else outputs_on_device\n    __ortcopy_dict['outputs_on_host'] = __ortcopy_factory6() if outputs_on_host is __ortcopy_has_factory else outputs_on_host\n    __ortcopy_dict['model_sites'] = __ortcopy_factory7() if model_sites is __ortcopy_has_factory else model_sites\n": (_make_100, ('__ortcopy_default2', '__ortcopy_factory3', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_factory6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, op_type, bytes, dur_us) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['op_type'] = op_type\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['dur_us'] = dur_us\n": (_make_101, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, name, role, via, device, bytes=__ortcopy_default4, shape=__ortcopy_default5, dtype=__ortcopy_default6, is_tensor=__ortcopy_default7, fresh=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['role'] = role\n    __ortcopy_dict['via'] = via\n    __ortcopy_dict['device'] = device\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['dtype'] = dtype\n    __ortcopy_dict['is_tensor'] = is_tensor\n    __ortcopy_dict['fresh'] = fresh\n": (_make_102, ('__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, format=__ortcopy_default0, format_version=__ortcopy_default1, ort_version=__ortcopy_default2, model=__ortcopy_default3, active_providers=__ortcopy_has_factory, requested_providers=__ortcopy_has_factory, placement=__ortcopy_has_factory, predicted_placement=__ortcopy_default7, census_backend=__ortcopy_default8, census_note=__ortcopy_default9, profile_note=__ortcopy_default10, calls=__ortcopy_has_factory, notes=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['format'] = format\n    __ortcopy_dict['format_version'] = format_version\n    __ortcopy_dict['ort_version'] = ort_version\n    __ortcopy_dict['model'] = model\n    __ortcopy_dict['active_providers'] = __ortcopy_factory4() if active_providers is __ortcopy_has_factory else active_providers\n    __ortcopy_dict['requested_providers'] = __ortcopy_factory5() if requested_providers is __ortcopy_has_factory else requested_providers\n    __ortcopy_dict['placement'] = __ortcopy_factory6() if placement is __ortcopy_has_factory else placement\n    __ortcopy_dict['predicted_placement'] = predicted_placement\n    __ortcopy_dict['census_backend'] = census_backend\n    __ortcopy_dict['census_note'] = census_note\n    __ortcopy_dict['profile_note'] = profile_note\n    __ortcopy_dict['calls'] = __ortcopy_factory11() if calls is __ortcopy_has_factory else calls\n    __ortcopy_dict['notes'] = __ortcopy_factory12() if notes is __ortcopy_has_factory else notes\n": (_make_103, ('__ortcopy_default0', '__ortcopy_default1', '__ortcopy_default10', '__ortcopy_default2', '__ortcopy_default3', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory11', '__ortcopy_factory12', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_factory6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, seq, output, device, bytes, at_ns) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['seq'] = seq\n    __ortcopy_dict['output'] = output\n    __ortcopy_dict['device'] = device\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['at_ns'] = at_ns\n": (_make_104, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, producer, output, consumer, input, calls, how, state, kind, d2h_bytes_per_call=__ortcopy_default8, h2d_bytes_per_call=__ortcopy_default9, basis=__ortcopy_default10, census_d2h=__ortcopy_default11, census_h2d=__ortcopy_default12, host_ms_between=__ortcopy_default13, message=__ortcopy_default14, fix=__ortcopy_default15, code=__ortcopy_default16) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['producer'] = producer\n    __ortcopy_dict['output'] = output\n    __ortcopy_dict['consumer'] = consumer\n    __ortcopy_dict['input'] = input\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['how'] = how\n    __ortcopy_dict['state'] = state\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['d2h_bytes_per_call'] = d2h_bytes_per_call\n    __ortcopy_dict['h2d_bytes_per_call'] = h2d_bytes_per_call\n    __ortcopy_dict['basis'] = basis\n    __ortcopy_dict['census_d2h'] = census_d2h\n    __ortcopy_dict['census_h2d'] = census_h2d\n    __ortcopy_dict['host_ms_between'] = host_ms_between\n    __ortcopy_dict['message'] = message\n    __ortcopy_dict['fix'] = fix\n    __ortcopy_dict['code'] = code\n": (_make_105, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_default16', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, kind, code, sessions, given, results, producer=__ortcopy_default5, consumer=__ortcopy_default6, pairs=__ortcopy_has_factory, stream=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['code'] = code\n    __ortcopy_dict['sessions'] = sessions\n    __ortcopy_dict['given'] = given\n    __ortcopy_dict['results'] = results\n    __ortcopy_dict['producer'] = producer\n    __ortcopy_dict['consumer'] = consumer\n    __ortcopy_dict['pairs'] = __ortcopy_factory7() if pairs is __ortcopy_has_factory else pairs\n    __ortcopy_dict['stream'] = stream\n": (_make_106, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default8', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, session, tensor, direction, calls, bytes_per_call, basis) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['bytes_per_call'] = bytes_per_call\n    __ortcopy_dict['basis'] = basis\n": (_make_107, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, sessions, iterations, round_trips, state, on_device, host_hand_offs, uploads, downloads, stages, iteration_ms, code=__ortcopy_default10, timing_note=__ortcopy_default11, code_check=__ortcopy_default12, head=__ortcopy_default13, head_site=__ortcopy_default14, stage_iterations=__ortcopy_default15, first_iteration=__ortcopy_has_factory, first_iteration_ms=__ortcopy_default17, before_loop=__ortcopy_has_factory, after_loop=__ortcopy_has_factory, new_shapes=__ortcopy_has_factory, h2d_bytes_per_iteration=__ortcopy_default21, d2h_bytes_per_iteration=__ortcopy_default22, bytes_predicted=__ortcopy_default23, largest_cost=__ortcopy_default24) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['sessions'] = sessions\n    __ortcopy_dict['iterations'] = iterations\n    __ortcopy_dict['round_trips'] = round_trips\n    __ortcopy_dict['state'] = state\n    __ortcopy_dict['on_device'] = on_device\n    __ortcopy_dict['host_hand_offs'] = host_hand_offs\n    __ortcopy_dict['uploads'] = uploads\n    __ortcopy_dict['downloads'] = downloads\n    __ortcopy_dict['stages'] = stages\n    __ortcopy_dict['iteration_ms'] = iteration_ms\n    __ortcopy_dict['code'] = code\n    __ortcopy_dict['timing_note'] = timing_note\n    __ortcopy_dict['code_check'] = code_check\n    __ortcopy_dict['head'] = head\n    __ortcopy_dict['head_site'] = head_site\n    __ortcopy_dict['stage_iterations'] = stage_iterations\n    __ortcopy_dict['first_iteration'] = __ortcopy_factory16() if first_iteration is __ortcopy_has_factory else first_iteration\n    __ortcopy_dict['first_iteration_ms'] = first_iteration_ms\n    __ortcopy_dict['before_loop'] = __ortcopy_factory18() if before_loop is __ortcopy_has_factory else before_loop\n    __ortcopy_dict['after_loop'] = __ortcopy_factory19() if after_loop is __ortcopy_has_factory else after_loop\n    __ortcopy_dict['new_shapes'] = __ortcopy_factory20() if new_shapes is __ortcopy_has_factory else new_shapes\n    __ortcopy_dict['h2d_bytes_per_iteration'] = h2d_bytes_per_iteration\n    __ortcopy_dict['d2h_bytes_per_iteration'] = d2h_bytes_per_iteration\n    __ortcopy_dict['bytes_predicted'] = bytes_predicted\n    __ortcopy_dict['largest_cost'] = largest_cost\n": (_make_108, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default12', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default15', '__ortcopy_default17', '__ortcopy_default21', '__ortcopy_default22', '__ortcopy_default23', '__ortcopy_default24', '__ortcopy_factory16', '__ortcopy_factory18', '__ortcopy_factory19', '__ortcopy_factory20', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, seq, session, call, method, wrap_start_ns=__ortcopy_default4, wrap_end_ns=__ortcopy_default5, overhead_start_ns=__ortcopy_default6, overhead_end_ns=__ortcopy_default7, start_ns=__ortcopy_default8, end_ns=__ortcopy_default9, bind_ns=__ortcopy_default10, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, error=__ortcopy_default13, site=__ortcopy_default14) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['seq'] = seq\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['call'] = call\n    __ortcopy_dict['method'] = method\n    __ortcopy_dict['wrap_start_ns'] = wrap_start_ns\n    __ortcopy_dict['wrap_end_ns'] = wrap_end_ns\n    __ortcopy_dict['overhead_start_ns'] = overhead_start_ns\n    __ortcopy_dict['overhead_end_ns'] = overhead_end_ns\n    __ortcopy_dict['start_ns'] = start_ns\n    __ortcopy_dict['end_ns'] = end_ns\n    __ortcopy_dict['bind_ns'] = bind_ns\n    __ortcopy_dict['inputs'] = __ortcopy_factory11() if inputs is __ortcopy_has_factory else inputs\n    __ortcopy_dict['outputs'] = __ortcopy_factory12() if outputs is __ortcopy_has_factory else outputs\n    __ortcopy_dict['error'] = error\n    __ortcopy_dict['site'] = site\n": (_make_109, ('__ortcopy_default10', '__ortcopy_default13', '__ortcopy_default14', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory11', '__ortcopy_factory12', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, format=__ortcopy_default0, format_version=__ortcopy_default1, ort_version=__ortcopy_default2, program=__ortcopy_has_factory, exit_code=__ortcopy_default4, ended_by=__ortcopy_default5, error=__ortcopy_default6, started_ns=__ortcopy_default7, ended_ns=__ortcopy_default8, census_requested=__ortcopy_default9, sessions=__ortcopy_has_factory, calls=__ortcopy_has_factory, downloads=__ortcopy_has_factory, libraries=__ortcopy_has_factory, notes=__ortcopy_has_factory, code_checks=__ortcopy_has_factory, device_status=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['format'] = format\n    __ortcopy_dict['format_version'] = format_version\n    __ortcopy_dict['ort_version'] = ort_version\n    __ortcopy_dict['program'] = __ortcopy_factory3() if program is __ortcopy_has_factory else program\n    __ortcopy_dict['exit_code'] = exit_code\n    __ortcopy_dict['ended_by'] = ended_by\n    __ortcopy_dict['error'] = error\n    __ortcopy_dict['started_ns'] = started_ns\n    __ortcopy_dict['ended_ns'] = ended_ns\n    __ortcopy_dict['census_requested'] = census_requested\n    __ortcopy_dict['sessions'] = __ortcopy_factory10() if sessions is __ortcopy_has_factory else sessions\n    __ortcopy_dict['calls'] = __ortcopy_factory11() if calls is __ortcopy_has_factory else calls\n    __ortcopy_dict['downloads'] = __ortcopy_factory12() if downloads is __ortcopy_has_factory else downloads\n    __ortcopy_dict['libraries'] = __ortcopy_factory13() if libraries is __ortcopy_has_factory else libraries\n    __ortcopy_dict['notes'] = __ortcopy_factory14() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['code_checks'] = __ortcopy_factory15() if code_checks is __ortcopy_has_factory else code_checks\n    __ortcopy_dict['device_status'] = __ortcopy_factory16() if device_status is __ortcopy_has_factory else device_status\n": (_make_110, ('__ortcopy_default0', '__ortcopy_default1', '__ortcopy_default2', '__ortcopy_default4', '__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_factory10', '__ortcopy_factory11', '__ortcopy_factory12', '__ortcopy_factory13', '__ortcopy_factory14', '__ortcopy_factory15', '__ortcopy_factory16', '__ortcopy_factory3', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, program, exit_code, ended_by, error, sessions, pipelines, observed, not_observed, notes, observations=__ortcopy_default9, providers=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['program'] = program\n    __ortcopy_dict['exit_code'] = exit_code\n    __ortcopy_dict['ended_by'] = ended_by\n    __ortcopy_dict['error'] = error\n    __ortcopy_dict['sessions'] = sessions\n    __ortcopy_dict['pipelines'] = pipelines\n    __ortcopy_dict['observed'] = observed\n    __ortcopy_dict['not_observed'] = not_observed\n    __ortcopy_dict['notes'] = notes\n    __ortcopy_dict['observations'] = observations\n    __ortcopy_dict['providers'] = __ortcopy_factory10() if providers is __ortcopy_has_factory else providers\n": (_make_111, ('__ortcopy_default9', '__ortcopy_factory10', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, session, created_at, available, cause, fix) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['created_at'] = created_at\n    __ortcopy_dict['available'] = available\n    __ortcopy_dict['cause'] = cause\n    __ortcopy_dict['fix'] = fix\n": (_make_112, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, label, model, observations, created_at=__ortcopy_default3, available_providers=__ortcopy_has_factory, provider_failures=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['label'] = label\n    __ortcopy_dict['model'] = model\n    __ortcopy_dict['observations'] = observations\n    __ortcopy_dict['created_at'] = created_at\n    __ortcopy_dict['available_providers'] = __ortcopy_factory4() if available_providers is __ortcopy_has_factory else available_providers\n    __ortcopy_dict['provider_failures'] = __ortcopy_factory5() if provider_failures is __ortcopy_has_factory else provider_failures\n": (_make_113, ('__ortcopy_default3', '__ortcopy_factory4', '__ortcopy_factory5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, label, model, providers, calls, placement, census, user_transfers) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['label'] = label\n    __ortcopy_dict['model'] = model\n    __ortcopy_dict['providers'] = providers\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['placement'] = placement\n    __ortcopy_dict['census'] = census\n    __ortcopy_dict['user_transfers'] = user_transfers\n": (_make_114, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, session, shape, iteration, site, ms, later_median_ms, later_calls, steady_median_ms=__ortcopy_default7) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['session'] = session\n    __ortcopy_dict['shape'] = shape\n    __ortcopy_dict['iteration'] = iteration\n    __ortcopy_dict['site'] = site\n    __ortcopy_dict['ms'] = ms\n    __ortcopy_dict['later_median_ms'] = later_median_ms\n    __ortcopy_dict['later_calls'] = later_calls\n    __ortcopy_dict['steady_median_ms'] = steady_median_ms\n": (_make_115, ('__ortcopy_default7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, stage, kind, calls, median_ms, total_ms, note=__ortcopy_default5, per_iteration_ms=__ortcopy_default6, site=__ortcopy_default7, before_site=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['stage'] = stage\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['median_ms'] = median_ms\n    __ortcopy_dict['total_ms'] = total_ms\n    __ortcopy_dict['note'] = note\n    __ortcopy_dict['per_iteration_ms'] = per_iteration_ms\n    __ortcopy_dict['site'] = site\n    __ortcopy_dict['before_site'] = before_site\n": (_make_116, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, role, kind, device, bytes=__ortcopy_default4, link=__ortcopy_default5) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['role'] = role\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['device'] = device\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['link'] = link\n": (_make_117, ('__ortcopy_default4', '__ortcopy_default5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, seq, output, how) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['seq'] = seq\n    __ortcopy_dict['output'] = output\n    __ortcopy_dict['how'] = how\n": (_make_118, ('__ortcopy_has_factory',)),
    "def __init__(__ortcopy_self, script, module, argv, interpreter=__ortcopy_default3, args=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['script'] = script\n    __ortcopy_dict['module'] = module\n    __ortcopy_dict['argv'] = argv\n    __ortcopy_dict['interpreter'] = interpreter\n    __ortcopy_dict['args'] = __ortcopy_factory4() if args is __ortcopy_has_factory else args\n": (_make_119, ('__ortcopy_default3', '__ortcopy_factory4', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, seq, output, obj, root_id, ptr, nbytes, host, digest, device, how=__ortcopy_default9, alias=__ortcopy_default10, derived=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['seq'] = seq\n    __ortcopy_dict['output'] = output\n    __ortcopy_dict['obj'] = obj\n    __ortcopy_dict['root_id'] = root_id\n    __ortcopy_dict['ptr'] = ptr\n    __ortcopy_dict['nbytes'] = nbytes\n    __ortcopy_dict['host'] = host\n    __ortcopy_dict['digest'] = digest\n    __ortcopy_dict['device'] = device\n    __ortcopy_dict['how'] = how\n    __ortcopy_dict['alias'] = alias\n    __ortcopy_dict['derived'] = __ortcopy_factory11() if derived is __ortcopy_has_factory else derived\n": (_make_120, ('__ortcopy_default10', '__ortcopy_default9', '__ortcopy_factory11', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, inputs=__ortcopy_has_factory, outputs=__ortcopy_has_factory, pending=__ortcopy_has_factory) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['inputs'] = __ortcopy_factory0() if inputs is __ortcopy_has_factory else inputs\n    __ortcopy_dict['outputs'] = __ortcopy_factory1() if outputs is __ortcopy_has_factory else outputs\n    __ortcopy_dict['pending'] = __ortcopy_factory2() if pending is __ortcopy_has_factory else pending\n": (_make_121, ('__ortcopy_factory0', '__ortcopy_factory1', '__ortcopy_factory2', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, requested_providers, runtime_graph, ep_failures, profiling, workdir, notes=__ortcopy_has_factory, profile_ended=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['requested_providers'] = requested_providers\n    __ortcopy_dict['runtime_graph'] = runtime_graph\n    __ortcopy_dict['ep_failures'] = ep_failures\n    __ortcopy_dict['profiling'] = profiling\n    __ortcopy_dict['workdir'] = workdir\n    __ortcopy_dict['notes'] = __ortcopy_factory5() if notes is __ortcopy_has_factory else notes\n    __ortcopy_dict['profile_ended'] = profile_ended\n": (_make_122, ('__ortcopy_default6', '__ortcopy_factory5', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, index, method, inputs, outputs, transfers, census=__ortcopy_default5, discrepancies=__ortcopy_has_factory, fixes=__ortcopy_has_factory, error=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['index'] = index\n    __ortcopy_dict['method'] = method\n    __ortcopy_dict['inputs'] = inputs\n    __ortcopy_dict['outputs'] = outputs\n    __ortcopy_dict['transfers'] = transfers\n    __ortcopy_dict['census'] = census\n    __ortcopy_dict['discrepancies'] = __ortcopy_factory6() if discrepancies is __ortcopy_has_factory else discrepancies\n    __ortcopy_dict['fixes'] = __ortcopy_factory7() if fixes is __ortcopy_has_factory else fixes\n    __ortcopy_dict['error'] = error\n": (_make_123, ('__ortcopy_default5', '__ortcopy_default8', '__ortcopy_factory6', '__ortcopy_factory7', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, name, role, via, device, needed_on, transfer=__ortcopy_default5, bytes=__ortcopy_default6) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['name'] = name\n    __ortcopy_dict['role'] = role\n    __ortcopy_dict['via'] = via\n    __ortcopy_dict['device'] = device\n    __ortcopy_dict['needed_on'] = needed_on\n    __ortcopy_dict['transfer'] = transfer\n    __ortcopy_dict['bytes'] = bytes\n": (_make_124, ('__ortcopy_default5', '__ortcopy_default6', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, call, kind, direction, tensor, bytes, basis, phase=__ortcopy_default6, node=__ortcopy_default7, src_kind=__ortcopy_default8, dst_kind=__ortcopy_default9, cause=__ortcopy_default10, fix=__ortcopy_default11) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['call'] = call\n    __ortcopy_dict['kind'] = kind\n    __ortcopy_dict['direction'] = direction\n    __ortcopy_dict['tensor'] = tensor\n    __ortcopy_dict['bytes'] = bytes\n    __ortcopy_dict['basis'] = basis\n    __ortcopy_dict['phase'] = phase\n    __ortcopy_dict['node'] = node\n    __ortcopy_dict['src_kind'] = src_kind\n    __ortcopy_dict['dst_kind'] = dst_kind\n    __ortcopy_dict['cause'] = cause\n    __ortcopy_dict['fix'] = fix\n": (_make_125, ('__ortcopy_default10', '__ortcopy_default11', '__ortcopy_default6', '__ortcopy_default7', '__ortcopy_default8', '__ortcopy_default9', '__ortcopy_has_factory')),
    "def __init__(__ortcopy_self, calls, providers, placement_source, placement_detail, observed, not_observed, notes, predicted=__ortcopy_default7, observations=__ortcopy_default8) -> None:\n    __ortcopy_dict = __ortcopy_self.__dict__\n    __ortcopy_dict['calls'] = calls\n    __ortcopy_dict['providers'] = providers\n    __ortcopy_dict['placement_source'] = placement_source\n    __ortcopy_dict['placement_detail'] = placement_detail\n    __ortcopy_dict['observed'] = observed\n    __ortcopy_dict['not_observed'] = not_observed\n    __ortcopy_dict['notes'] = notes\n    __ortcopy_dict['predicted'] = predicted\n    __ortcopy_dict['observations'] = observations\n": (_make_126, ('__ortcopy_default7', '__ortcopy_default8', '__ortcopy_has_factory')),
}
