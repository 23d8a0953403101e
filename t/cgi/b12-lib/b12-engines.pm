# A package-less data file (B12), as AWStats' lib/search_engines.pm: no
# package line, so it fills the globals of whoever requires it.
%EngineName = (google => 'Google', bing => 'Bing', duckduckgo => 'DuckDuckGo');
push @EngineOrder, qw(google bing duckduckgo);
$EngineLoads++;
1;
