# bench/pools: / is Hello World; /ai/...?sleep=S hangs S seconds first.
sub {
    my $env = shift;
    if ($env->{PATH_INFO} =~ m{^/ai/}) {
        my ($sleep) = ($env->{QUERY_STRING} // '') =~ /sleep=([\d.]+)/;
        select undef, undef, undef, $sleep if $sleep;
    }
    [200, ['Content-Type' => 'text/plain'], ["Hello World\n"]];
}
