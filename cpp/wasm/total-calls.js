// Appended to the module's JavaScript (--post-js). embind checks how many arguments a call gets and throws
// its own BindingError before C++ runs. To keep the contract total (every call returns {ok, ...}, none
// throws), a call with the wrong number of arguments hands C++ its arguments as one array, which C++
// refuses as a value like any other malformed request ("request must be an object, got an array").
// Written in the plain JavaScript that Emscripten's own optimiser parses. Every bound call is wrapped,
// whichever module this is: embind gives each its arity.
Module['onRuntimeInitialized'] = (function (previous) {
  return function () {
    // embind records each bound function's number of JavaScript arguments as its argCount.
    Object.keys(Module).forEach(function (name) {
      var call = Module[name];
      if (typeof call !== 'function' || typeof call.argCount !== 'number') return;
      var count = call.argCount;
      Module[name] = function () {
        var args = Array.prototype.slice.call(arguments);
        if (args.length === count) return call.apply(null, args);
        var padded = [args];
        while (padded.length < count) padded.push(undefined);
        return call.apply(null, padded.slice(0, count));
      };
    });
    if (previous) previous();
  };
})(Module['onRuntimeInitialized']);
