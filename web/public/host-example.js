// The course page's side: log every answer statement (a check each), from the element (a DOM event) and from
// the iframe (a postMessage). A real course would add the learner as actor and send every statement, the
// lesson's own (initialized, completed, …) and shown answers too, to its LRS.
(function () {
  var log = document.getElementById('answer-log');
  function record(source, statement) {
    if (statement.verb.id !== 'http://adlnet.gov/expapi/verbs/answered') return;
    var item = document.createElement('li');
    item.textContent = source + ': ' + statement.object.id + ' → ' + (statement.result.success ? 'correct' : 'incorrect') +
      ' (response "' + statement.result.response + '")';
    log.append(item);
  }
  document.addEventListener('qkv-lesson-answer', function (event) {
    record('element', event.detail);
  });
  window.addEventListener('message', function (event) {
    var frame = document.querySelector('iframe[data-qkv-lesson]');
    if (!frame || event.source !== frame.contentWindow || event.origin !== location.origin) return;
    var data = event.data;
    if (!data || typeof data !== 'object' || data.type !== 'qkv-lesson:answer' || !data.statement) return;
    record('iframe', data.statement);
  });
})();
